// SPDX-License-Identifier: LGPL-2.1-or-later
// Host-side post-processing shared by the backends: canonical order, duplicates, strongest N.
#pragma once

#include <cstddef>
#include <vector>

#include "gpusift/features.h"
#include "gpusift/keypoint.h"

namespace gpusift {

// Sorts into the canonical order and removes keypoints equal in x, y, size and angle, as
// OpenCV's KeyPointsFilter::removeDuplicatedSorted.
void sort_and_deduplicate(std::vector<Keypoint>* keypoints);

// Keeps the `count` keypoints of largest response (ties broken by the canonical order) and
// leaves them in the canonical order. Does nothing when there are no more than `count`.
void retain_strongest(std::vector<Keypoint>* keypoints, size_t count);

// The CPU backends' common finish: canonical order without duplicates, the nfeatures strongest
// (0: all), then at most max_keypoints with the overflow reported; fills out's keypoints,
// detected_count and overflowed.
void select_detections(std::vector<Keypoint>* detections, int nfeatures, int max_keypoints,
                       Features* out);

}  // namespace gpusift
