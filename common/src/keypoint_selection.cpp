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

}  // namespace gpusift
