// SPDX-License-Identifier: LGPL-2.1-or-later
// The agreement rule between two keypoint sets, used by every parity test:
// a keypoint agrees with another when it lies within max(1 px, 5 % of its size), its size is
// within 25 % and its angle within 15 degrees.
#pragma once

#include <opencv2/core.hpp>
#include <opencv2/features2d.hpp>
#include <vector>

#include "gpusift/features.h"

namespace gpusift::testing {

struct Agreement {
  double recall = 0;                      // share of reference keypoints with an agreeing candidate
  double precision = 0;                   // share of candidate keypoints with an agreeing reference
  double median_descriptor_distance = 0;  // L2 of unit descriptors, closest agreeing pairs
  double p99_descriptor_distance = 0;     // their 99th percentile: a few bad rows show here
  double max_descriptor_distance = 0;     // and their largest
  int reference_count = 0;
  int candidate_count = 0;
};

bool keypoints_agree(const cv::KeyPoint& reference, const cv::KeyPoint& candidate);

// Descriptor rows may be float or uint8, any scale: each row is brought to unit L2 norm.
Agreement compare_features(const std::vector<cv::KeyPoint>& reference,
                           const cv::Mat& reference_descriptors,
                           const std::vector<cv::KeyPoint>& candidate,
                           const cv::Mat& candidate_descriptors);

std::vector<cv::KeyPoint> to_cv_keypoints(const Features& features);
cv::Mat to_cv_descriptors(const Features& features);

}  // namespace gpusift::testing
