// SPDX-License-Identifier: LGPL-2.1-or-later
// --draw: the image with its keypoints as OpenCV draws them (circle of the size, angle tick).
#pragma once

#include <opencv2/core.hpp>
#include <string>

#include "gpusift/features.h"

namespace gpusift::tools {

// Throws std::runtime_error (one line, naming the path) when the image cannot be written.
void write_keypoint_drawing(const std::string& path, const cv::Mat& gray, const Features& features);

}  // namespace gpusift::tools
