// SPDX-License-Identifier: LGPL-2.1-or-later
#include "spread_selection.h"

#include <cub/cub.cuh>

#include <algorithm>

#include "bits_for.h"
#include "cuda_check.h"

namespace gpusift::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kResponseBits = 32;

__device__ uint64_t padded_key(int key_bits) {
  return (uint64_t{1} << key_bits) - 1;
}

// keys[i] = (cell, strongest first) for the real rows, above every real key for the padded tail.
__global__ void gather_cell_keys(const Keypoint* keypoints, const int* count, int capacity,
                                 KeypointGrid grid, int key_bits, uint64_t* keys, uint32_t* order,
                                 uint8_t* keep) {
  const int n = min(*count, capacity);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < capacity; i += gridDim.x * blockDim.x) {
    if (i < n) {
      const Keypoint& k = keypoints[i];
      const uint64_t cell = static_cast<uint32_t>(keypoint_grid_cell(grid, k));
      keys[i] = cell << kResponseBits | strongest_first_key(k.response);
    } else {
      keys[i] = padded_key(key_bits);
    }
    order[i] = i;
    keep[i] = 0;
  }
}

// The first position of sorted[0..n) whose key is at least `key`.
__device__ int lower_bound(const uint64_t* sorted, int n, uint64_t key) {
  int low = 0, high = n;
  while (low < high) {
    const int middle = (low + high) / 2;
    if (sorted[middle] < key)
      low = middle + 1;
    else
      high = middle;
  }
  return low;
}

// From the (cell, response) order: each keypoint's key becomes (rank in its cell, response), at
// its own index, so that the next stable sort breaks ties by index as the CPU does.
__global__ void rank_within_cells(const uint64_t* by_cell, const uint32_t* order_by_cell,
                                  const int* count, int capacity, int key_bits, uint64_t* keys) {
  const int n = min(*count, capacity);
  for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < capacity; p += gridDim.x * blockDim.x) {
    const uint32_t index = order_by_cell[p];
    if (p >= n) {
      keys[index] = padded_key(key_bits);
      continue;
    }
    const uint64_t cell_start_key = by_cell[p] >> kResponseBits << kResponseBits;
    const uint64_t rank = p - lower_bound(by_cell, n, cell_start_key);
    keys[index] = rank << kResponseBits | (by_cell[p] & 0xffffffffu);
  }
}

__global__ void mark_first(const uint32_t* order_sorted, const int* count, int capacity, int limit,
                           uint8_t* keep) {
  const int kept = min(min(*count, capacity), limit);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < kept; i += gridDim.x * blockDim.x)
    keep[order_sorted[i]] = 1;
}

}  // namespace

void keep_spread_counted_on_device(const Scratch& scratch, const SpreadWork& work,
                                   const KeypointGrid& grid, const Keypoint* in, const int* count,
                                   int capacity, int limit, Keypoint* out, cudaStream_t stream) {
  if (capacity == 0)
    return;
  const int blocks = std::min((capacity + kThreads - 1) / kThreads, 1024);
  const int cell_key_bits = bits_for(kMaxGridCells) + kResponseBits;
  const int rank_key_bits = bits_for(capacity) + kResponseBits;
  gather_cell_keys<<<blocks, kThreads, 0, stream>>>(in, count, capacity, grid, cell_key_bits,
                                                    work.keys, work.order, work.keep);
  check_launch("gather_cell_keys");
  sort_padded_by_key(scratch, work.keys, work.keys_sorted, work.order, work.order_sorted, count,
                     capacity, cell_key_bits, stream);
  rank_within_cells<<<blocks, kThreads, 0, stream>>>(work.keys_sorted, work.order_sorted, count,
                                                     capacity, rank_key_bits, work.keys);
  check_launch("rank_within_cells");
  sort_padded_by_key(scratch, work.keys, work.keys_sorted, work.order, work.order_sorted, count,
                     capacity, rank_key_bits, stream);
  mark_first<<<blocks, kThreads, 0, stream>>>(work.order_sorted, count, capacity, limit, work.keep);
  check_launch("mark_first");
  size_t bytes = scratch.bytes;
  check(cub::DeviceSelect::Flagged(scratch.data, bytes, in, work.keep, out, work.kept_count,
                                   capacity, stream),
        "cub::DeviceSelect::Flagged");
}

}  // namespace gpusift::cuda
