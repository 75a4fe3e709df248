// SPDX-License-Identifier: LGPL-2.1-or-later
#include "camera_motion.h"

#include <cmath>
#include <opencv2/imgproc.hpp>

namespace gpusift::demo {

cv::Matx33d frame_homography(int index, int count, cv::Size source, cv::Size frame) {
  const double t = count > 1 ? static_cast<double>(index) / (count - 1) : 0.0;
  const double angle = 12.0 * std::sin(2.0 * CV_PI * t) * CV_PI / 180.0;
  // Fill the frame at t = 0, then zoom in by 25 %.
  const double fit = std::max(static_cast<double>(frame.width) / source.width,
                              static_cast<double>(frame.height) / source.height);
  const double scale = fit * 1.2 * (1.0 + 0.25 * t);
  const double drift_x = 0.05 * frame.width * std::sin(CV_PI * t);
  const double drift_y = 0.03 * frame.height * t;
  const double c = std::cos(angle) * scale, s = std::sin(angle) * scale;
  const cv::Point2d from(source.width / 2.0, source.height / 2.0);
  const cv::Point2d to(frame.width / 2.0 + drift_x, frame.height / 2.0 + drift_y);
  return cv::Matx33d(c, -s, to.x - (c * from.x - s * from.y),  //
                     s, c, to.y - (s * from.x + c * from.y),   //
                     0, 0, 1);
}

cv::Mat render_frame(const cv::Mat& source, const cv::Matx33d& homography, cv::Size frame) {
  cv::Mat out;
  cv::warpPerspective(source, out, cv::Mat(homography), frame, cv::INTER_LINEAR,
                      cv::BORDER_REFLECT_101);
  return out;
}

}  // namespace gpusift::demo
