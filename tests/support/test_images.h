// Real test images (scikit-image's data set, fetched by tools/fetch-test-images.sh).
#pragma once

#include <opencv2/core.hpp>
#include <string>
#include <vector>

namespace gpusift::testing {

// The five images the parity suites run on.
const std::vector<std::string>& parity_image_names();

// Loads tests/data/<name> as GRAY8; fails the current test (ADD_FAILURE) and returns an empty
// Mat when the file is missing, so a machine without the data cannot pass vacuously.
cv::Mat load_gray(const std::string& name);

// `gray` resized to width x height (area interpolation when shrinking, cubic when growing).
cv::Mat resized(const cv::Mat& gray, int width, int height);

}  // namespace gpusift::testing
