// Matches a frame's features to the first frame's and scores them with the known homographies.
#pragma once

#include <opencv2/core.hpp>
#include <vector>

namespace gpusift::demo {

struct FrameFeatures {
  std::vector<cv::KeyPoint> keypoints;
  cv::Mat descriptors;
  cv::Matx33d homography;  // source image -> this frame
};

struct TrackScore {
  int matches = 0;  // Lowe ratio 0.8
  int correct = 0;  // reprojection error under 3 px under the true motion
};

TrackScore score_against_first(const FrameFeatures& first, const FrameFeatures& current);

}  // namespace gpusift::demo
