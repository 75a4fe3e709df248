// SPDX-License-Identifier: LGPL-2.1-or-later
// Host-side post-processing shared by the backends: canonical order, duplicates, strongest N.
#pragma once

#include <cstddef>
#include <vector>

#include "gpusift/features.h"
#include "gpusift/keypoint.h"
#include "gpusift/keypoint_grid.h"
#include "gpusift/sift_params.h"

namespace gpusift {

// Sorts into the canonical order and removes keypoints equal in x, y, size and angle, as
// OpenCV's KeyPointsFilter::removeDuplicatedSorted.
void sort_and_deduplicate(std::vector<Keypoint>* keypoints);

// Keeps the `count` keypoints of largest response (ties broken by the canonical order) and
// leaves them in the canonical order. Does nothing when there are no more than `count`.
void retain_strongest(std::vector<Keypoint>* keypoints, size_t count);

// Keeps `count` keypoints spread over `grid` (KeypointDistribution::kGrid): the first `count` in
// the order of (rank within its cell by response, response descending, canonical order), left in
// the canonical order. Expects the keypoints in the canonical order. Does nothing when there are
// no more than `count`.
void retain_spread(std::vector<Keypoint>* keypoints, size_t count, const KeypointGrid& grid);

// nfeatures and how it is spread, on a frame of that size.
struct KeypointBudget {
  int nfeatures;  // 0: all
  KeypointDistribution distribution;
  int frame_width;
  int frame_height;
};

// The CPU backends' common finish: canonical order without duplicates, the budget's keypoints,
// then at most max_keypoints (the strongest) with the overflow reported; fills out's keypoints,
// detected_count and overflowed.
void select_detections(std::vector<Keypoint>* detections, const KeypointBudget& budget,
                       int max_keypoints, Features* out);

}  // namespace gpusift
