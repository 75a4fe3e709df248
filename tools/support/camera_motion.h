// SPDX-License-Identifier: LGPL-2.1-or-later
// A synthetic camera move over a still image: every frame's homography is known exactly, so the
// features found in a frame can be checked against those of the first frame.
#pragma once

#include <opencv2/core.hpp>

namespace gpusift::demo {

// Homography from source-image coordinates to frame `index` of `count`: a slow zoom with a
// rotation that swings +-12 degrees and a drift, centred on the frame.
cv::Matx33d frame_homography(int index, int count, cv::Size source, cv::Size frame);

cv::Mat render_frame(const cv::Mat& source, const cv::Matx33d& homography, cv::Size frame);

}  // namespace gpusift::demo
