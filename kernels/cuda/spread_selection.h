// SPDX-License-Identifier: LGPL-2.1-or-later
// nfeatures spread over a grid of cells (KeypointDistribution::kGrid) on the device: the same
// keypoints as the CPU's retain_spread, in the canonical order.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpusift/keypoint.h"
#include "gpusift/keypoint_grid.h"
#include "list_primitives.h"

namespace gpusift::cuda {

// Work lists of `capacity` items each.
struct SpreadWork {
  uint64_t* keys;
  uint64_t* keys_sorted;
  uint32_t* order;
  uint32_t* order_sorted;
  uint8_t* keep;
  int* kept_count;
};

// Copies to `out`, in their order, `limit` of the keypoints in[0..min(*count, capacity)), which
// are in the canonical order: the first `limit` in the order of (rank within their cell of `grid`
// by response, response descending, index). The number kept, min(count, limit), goes to
// work.kept_count. Two stable sorts: by (cell, response) for the ranks, then by (rank, response).
void keep_spread_counted_on_device(const Scratch& scratch, const SpreadWork& work,
                                   const KeypointGrid& grid, const Keypoint* in, const int* count,
                                   int capacity, int limit, Keypoint* out, cudaStream_t stream);

}  // namespace gpusift::cuda
