#include "track_check.h"

#include <cmath>
#include <opencv2/features2d.hpp>

namespace gpusift::demo {

TrackScore score_against_first(const FrameFeatures& first, const FrameFeatures& current) {
  TrackScore score;
  if (first.descriptors.empty() || current.descriptors.empty())
    return score;
  const cv::Matx33d first_to_current = current.homography * first.homography.inv();
  cv::BFMatcher matcher(cv::NORM_L2);
  std::vector<std::vector<cv::DMatch>> knn;
  cv::Mat a, b;
  first.descriptors.convertTo(a, CV_32F);
  current.descriptors.convertTo(b, CV_32F);
  matcher.knnMatch(a, b, knn, 2);
  for (const auto& pair : knn) {
    if (pair.size() < 2 || pair[0].distance >= 0.8f * pair[1].distance)
      continue;
    ++score.matches;
    const cv::Point2f p = first.keypoints[pair[0].queryIdx].pt;
    const cv::Vec3d q = first_to_current * cv::Vec3d(p.x, p.y, 1.0);
    const cv::Point2f expected(static_cast<float>(q[0] / q[2]), static_cast<float>(q[1] / q[2]));
    const cv::Point2f found = current.keypoints[pair[0].trainIdx].pt;
    if (std::hypot(expected.x - found.x, expected.y - found.y) < 3.0)
      ++score.correct;
  }
  return score;
}

}  // namespace gpusift::demo
