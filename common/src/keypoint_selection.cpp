// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/keypoint_selection.h"

#include <algorithm>
#include <cstdint>

namespace gpusift {

void sort_and_deduplicate(std::vector<Keypoint>* keypoints) {
  std::sort(keypoints->begin(), keypoints->end(), keypoint_canonical_less);
  auto last = std::unique(keypoints->begin(), keypoints->end(), keypoint_same_feature);
  keypoints->erase(last, keypoints->end());
}

void retain_strongest(std::vector<Keypoint>* keypoints, size_t count) {
  if (keypoints->size() <= count)
    return;
  auto stronger = [](const Keypoint& a, const Keypoint& b) {
    if (a.response != b.response)
      return a.response > b.response;
    return keypoint_canonical_less(a, b);
  };
  std::nth_element(keypoints->begin(), keypoints->begin() + count, keypoints->end(), stronger);
  keypoints->resize(count);
  std::sort(keypoints->begin(), keypoints->end(), keypoint_canonical_less);
}

namespace {

// A sort key with the keypoint's canonical index: (key, index) order is a stable sort by key,
// the order of the CUDA backend's radix sorts.
struct IndexedKey {
  uint64_t key;
  uint32_t index;
  bool operator<(const IndexedKey& other) const {
    return key != other.key ? key < other.key : index < other.index;
  }
};

}  // namespace

void retain_spread(std::vector<Keypoint>* keypoints, size_t count, const KeypointGrid& grid) {
  const size_t n = keypoints->size();
  if (n <= count)
    return;
  std::vector<IndexedKey> order(n);
  for (size_t i = 0; i < n; ++i) {
    const Keypoint& k = (*keypoints)[i];
    const uint64_t cell = static_cast<uint32_t>(keypoint_grid_cell(grid, k));
    order[i] = {cell << 32 | strongest_first_key(k.response), static_cast<uint32_t>(i)};
  }
  std::sort(order.begin(), order.end());
  // Each keypoint's rank within its cell replaces the cell: round r is every cell's r-th.
  uint64_t cell = ~uint64_t{0};
  uint64_t rank = 0;
  for (IndexedKey& entry : order) {
    const uint64_t entry_cell = entry.key >> 32;
    rank = entry_cell == cell ? rank + 1 : 0;
    cell = entry_cell;
    entry.key = rank << 32 | (entry.key & 0xffffffffu);
  }
  std::nth_element(order.begin(), order.begin() + count, order.end());
  std::vector<bool> keep(n, false);
  for (size_t i = 0; i < count; ++i)
    keep[order[i].index] = true;
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    if (keep[i])
      (*keypoints)[kept++] = (*keypoints)[i];
  }
  keypoints->resize(kept);
}

void select_detections(std::vector<Keypoint>* detections, const KeypointBudget& budget,
                       int max_keypoints, Features* out) {
  sort_and_deduplicate(detections);
  if (budget.nfeatures > 0 && budget.distribution == KeypointDistribution::kGrid)
    retain_spread(detections, budget.nfeatures,
                  keypoint_grid_for(budget.frame_width, budget.frame_height, budget.nfeatures));
  else if (budget.nfeatures > 0)
    retain_strongest(detections, budget.nfeatures);
  out->detected_count = static_cast<int>(detections->size());
  if (detections->size() > static_cast<size_t>(max_keypoints)) {
    retain_strongest(detections, max_keypoints);
    out->overflowed = true;
  }
  out->keypoints.assign(detections->begin(), detections->end());
}

}  // namespace gpusift
