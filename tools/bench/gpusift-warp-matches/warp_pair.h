// SPDX-License-Identifier: LGPL-2.1-or-later
// An image and its copy under a known rotation and scale about the centre, and the count of
// matches that land where that transform puts them.
#pragma once

#include <opencv2/core.hpp>
#include <vector>

#include "gpusift/match_types.h"

namespace gpusift::tools {

struct WarpPair {
  cv::Mat original;
  cv::Mat warped;
  cv::Matx23d transform;  // original -> warped pixel coordinates, pixel centres at integers
};

WarpPair make_warp_pair(const cv::Mat& gray, double rotation_degrees, double scale);

// The distances from where `transform` puts each match's original point to its match, in pixels
// of the warped image, for the matches closer than `tolerance_px` (the correct ones).
std::vector<double> correct_match_errors(const std::vector<cv::Point2f>& original_points,
                                         const std::vector<cv::Point2f>& warped_points,
                                         const std::vector<Match>& matches,
                                         const cv::Matx23d& transform, double tolerance_px);

}  // namespace gpusift::tools
