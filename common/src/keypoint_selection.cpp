// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/keypoint_selection.h"

#include <algorithm>

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

void select_detections(std::vector<Keypoint>* detections, int nfeatures, int max_keypoints,
                       Features* out) {
  sort_and_deduplicate(detections);
  if (nfeatures > 0)
    retain_strongest(detections, nfeatures);
  out->detected_count = static_cast<int>(detections->size());
  if (detections->size() > static_cast<size_t>(max_keypoints)) {
    retain_strongest(detections, max_keypoints);
    out->overflowed = true;
  }
  out->keypoints.assign(detections->begin(), detections->end());
}

}  // namespace gpusift
