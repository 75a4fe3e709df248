// SPDX-License-Identifier: LGPL-2.1-or-later
#include "warp_pair.h"

#include <cmath>
#include <opencv2/imgproc.hpp>

namespace gpusift::tools {

WarpPair make_warp_pair(const cv::Mat& gray, double rotation_degrees, double scale) {
  WarpPair pair;
  pair.original = gray;
  const cv::Point2f centre((gray.cols - 1) * 0.5f, (gray.rows - 1) * 0.5f);
  pair.transform = cv::getRotationMatrix2D(centre, rotation_degrees, scale);
  cv::warpAffine(gray, pair.warped, cv::Mat(pair.transform), gray.size(), cv::INTER_LINEAR);
  return pair;
}

std::vector<double> correct_match_errors(const std::vector<cv::Point2f>& original_points,
                                         const std::vector<cv::Point2f>& warped_points,
                                         const std::vector<Match>& matches,
                                         const cv::Matx23d& transform, double tolerance_px) {
  std::vector<double> errors;
  for (const Match& m : matches) {
    const cv::Point2f from = original_points[m.query];
    const cv::Point2f to = warped_points[m.train];
    const cv::Vec2d expected = transform * cv::Vec3d(from.x, from.y, 1.0);
    const double error = std::hypot(expected[0] - to.x, expected[1] - to.y);
    if (error < tolerance_px)
      errors.push_back(error);
  }
  return errors;
}

}  // namespace gpusift::tools
