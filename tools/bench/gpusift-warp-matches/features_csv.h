// SPDX-License-Identifier: LGPL-2.1-or-later
// Keypoint positions and 128-value float descriptors from a CSV file of another extractor: one
// row per keypoint, x and y first, the descriptor in the last 128 columns (gpusift-extract's CSV
// has this layout). Lines that do not start with a number are headers and skipped.
#pragma once

#include <opencv2/core.hpp>
#include <string>
#include <vector>

namespace gpusift::tools {

struct PointsAndDescriptors {
  std::vector<cv::Point2f> points;
  std::vector<float> descriptors;  // row-major, 128 per point
};

inline constexpr int kCsvDescriptorSize = 128;

// Throws std::runtime_error naming the file and line of the first malformed row.
PointsAndDescriptors read_features_csv(const std::string& path);

}  // namespace gpusift::tools
