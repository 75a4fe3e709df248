// SPDX-License-Identifier: LGPL-2.1-or-later
// The descriptor sets gpusift-bench-match times: real SIFT features of the test images against
// those of their perspective warps, or random unit vectors where the images are missing.
#pragma once

#include <string>
#include <vector>

#include "gpusift/features.h"

namespace gpusift::tools {

struct MatchWorkload {
  Features query, train;  // float descriptors, `count` rows each
  std::string description;
};

// `count` rows a side: SIFT features (CUDA extractor, defaults) of the PNM test images in
// `data_dir`, each against its warp by a fixed homography, concatenated and cut to `count`; or,
// when the images give fewer, random non-negative unit vectors (said in `description`).
MatchWorkload make_match_workload(const std::string& data_dir, int count);

// The same rows as uint8 (OpenCV's conversion: saturate(512 * value)).
std::vector<uint8_t> to_bytes(const std::vector<float>& values);

}  // namespace gpusift::tools
