// Host-side post-processing shared by the backends: canonical order, duplicates, strongest N.
#pragma once

#include <cstddef>
#include <vector>

#include "gpusift/keypoint.h"

namespace gpusift {

// Sorts into the canonical order and removes keypoints equal in x, y, size and angle, as
// OpenCV's KeyPointsFilter::removeDuplicatedSorted.
void sort_and_deduplicate(std::vector<Keypoint>* keypoints);

// Keeps the `count` keypoints of largest response (ties broken by the canonical order) and
// leaves them in the canonical order. Does nothing when there are no more than `count`.
void retain_strongest(std::vector<Keypoint>* keypoints, size_t count);

}  // namespace gpusift
