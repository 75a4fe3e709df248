// SPDX-License-Identifier: LGPL-2.1-or-later
// Real test images (scikit-image's data set, fetched by tools/scripts/fetch-test-images.sh).
#pragma once

#include <opencv2/core.hpp>
#include <string>
#include <vector>

namespace gpusift::testing {

// The five images the parity suites run on.
const std::vector<std::string>& parity_image_names();

// tests/data/<name>, or $GPUSIFT_TEST_DATA_DIR/<name> when that is set (a build carried to
// another machine, where the configured source path does not exist).
std::string test_data_path(const std::string& name);

// Loads tests/data/<name> (its .pnm copy, whatever extension is given) in BGR order, or GRAY8
// for gray images; ADD_FAILURE and an empty Mat when missing.
cv::Mat load_bgr(const std::string& name);

// Loads tests/data/<name> as GRAY8 (OpenCV's BGR-to-gray conversion); fails the current test
// (ADD_FAILURE) and returns an empty Mat when the file is missing, so a machine without the data
// cannot pass vacuously.
cv::Mat load_gray(const std::string& name);

// `gray` resized to width x height (area interpolation when shrinking, cubic when growing).
cv::Mat resized(const cv::Mat& gray, int width, int height);

}  // namespace gpusift::testing
