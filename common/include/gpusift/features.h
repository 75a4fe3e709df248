// SPDX-License-Identifier: LGPL-2.1-or-later
// What an extractor returns for one frame.
#pragma once

#include <cstdint>
#include <vector>

#include "gpusift/keypoint.h"
#include "gpusift/sift_params.h"

namespace gpusift {

struct Features {
  std::vector<Keypoint> keypoints;
  DescriptorFormat descriptor_format = DescriptorFormat::kNone;
  int descriptor_size = 0;
  // Row i belongs to keypoints[i]; only the vector matching descriptor_format is filled.
  std::vector<float> float_descriptors;
  std::vector<uint8_t> byte_descriptors;
  // Keypoints found before the capacity cut; larger than keypoints.size() on overflow.
  int detected_count = 0;
  bool overflowed = false;

  // Empties the result but keeps the vectors' storage for the next frame.
  void clear() {
    clear_keeping_descriptor_sizes();
    float_descriptors.clear();
    byte_descriptors.clear();
  }

  // As clear(), but the descriptor arrays keep their sizes, for an extractor that overwrites them:
  // emptied, they would be filled with zeros again before each frame's rows are copied in.
  void clear_keeping_descriptor_sizes() {
    keypoints.clear();
    descriptor_format = DescriptorFormat::kNone;
    descriptor_size = 0;
    detected_count = 0;
    overflowed = false;
  }

  int descriptor_row_count() const {
    if (descriptor_size == 0)
      return 0;
    const size_t values = descriptor_format == DescriptorFormat::kUint8 ? byte_descriptors.size()
                                                                        : float_descriptors.size();
    return static_cast<int>(values / descriptor_size);
  }
};

}  // namespace gpusift
