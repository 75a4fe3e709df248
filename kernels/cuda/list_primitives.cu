// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cub/cub.cuh>

#include <algorithm>

#include "cuda_check.h"
#include "list_primitives.h"

namespace gpusift::cuda {

namespace {

__global__ void gather_responses(const Keypoint* keypoints, int n, float* responses,
                                 uint32_t* order, uint8_t* keep) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  responses[i] = keypoints[i].response;
  order[i] = i;
  keep[i] = 0;
}

__global__ void mark_first(const uint32_t* order_sorted, int limit, uint8_t* keep) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < limit)
    keep[order_sorted[i]] = 1;
}

// Rows past the count sort last: lower than any response, and after every real row on ties.
__global__ void gather_counted_responses(const Keypoint* keypoints, const int* count, int capacity,
                                         float* responses, uint32_t* order, uint8_t* keep) {
  const int n = min(*count, capacity);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < capacity; i += gridDim.x * blockDim.x) {
    responses[i] = i < n ? keypoints[i].response : -INFINITY;
    order[i] = i;
    keep[i] = 0;
  }
}

__global__ void mark_first_counted(const uint32_t* order_sorted, const int* count, int capacity,
                                   int limit, uint8_t* keep) {
  const int kept = min(min(*count, capacity), limit);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < kept; i += gridDim.x * blockDim.x)
    keep[order_sorted[i]] = 1;
}

int blocks_for(int n, int threads) {
  return (n + threads - 1) / threads;
}

}  // namespace

size_t list_scratch_bytes(int capacity) {
  size_t sort_keys = 0, sort_responses = 0, scan = 0, select = 0;
  check(cub::DeviceRadixSort::SortPairs(nullptr, sort_keys, static_cast<const uint64_t*>(nullptr),
                                        static_cast<uint64_t*>(nullptr),
                                        static_cast<const uint32_t*>(nullptr),
                                        static_cast<uint32_t*>(nullptr), capacity),
        "cub sort size");
  check(
      cub::DeviceRadixSort::SortPairsDescending(
          nullptr, sort_responses, static_cast<const float*>(nullptr), static_cast<float*>(nullptr),
          static_cast<const uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr), capacity),
      "cub sort size");
  check(cub::DeviceScan::ExclusiveSum(nullptr, scan, static_cast<const int*>(nullptr),
                                      static_cast<int*>(nullptr), capacity + 1),
        "cub scan size");
  check(cub::DeviceSelect::Flagged(nullptr, select, static_cast<const Keypoint*>(nullptr),
                                   static_cast<const uint8_t*>(nullptr),
                                   static_cast<Keypoint*>(nullptr), static_cast<int*>(nullptr),
                                   capacity),
        "cub select size");
  return std::max({sort_keys, sort_responses, scan, select});
}

void sort_by_key(const Scratch& scratch, const uint64_t* keys_in, uint64_t* keys_out,
                 const uint32_t* values_in, uint32_t* values_out, int n, int key_bits,
                 cudaStream_t stream) {
  size_t bytes = scratch.bytes;
  check(cub::DeviceRadixSort::SortPairs(scratch.data, bytes, keys_in, keys_out, values_in,
                                        values_out, n, 0, key_bits, stream),
        "cub::DeviceRadixSort::SortPairs");
}

void exclusive_sum(const Scratch& scratch, const int* in, int* out, int n, cudaStream_t stream) {
  size_t bytes = scratch.bytes;
  check(cub::DeviceScan::ExclusiveSum(scratch.data, bytes, in, out, n, stream),
        "cub::DeviceScan::ExclusiveSum");
}

void keep_strongest(const Scratch& scratch, const StrongestWork& work, const Keypoint* in, int n,
                    int limit, Keypoint* out, cudaStream_t stream) {
  const int threads = 256;
  gather_responses<<<blocks_for(n, threads), threads, 0, stream>>>(in, n, work.responses,
                                                                   work.order, work.keep);
  check_launch("gather_responses");
  size_t bytes = scratch.bytes;
  check(cub::DeviceRadixSort::SortPairsDescending(scratch.data, bytes, work.responses,
                                                  work.responses_sorted, work.order,
                                                  work.order_sorted, n, 0, 32, stream),
        "cub::DeviceRadixSort::SortPairsDescending");
  mark_first<<<blocks_for(limit, threads), threads, 0, stream>>>(work.order_sorted, limit,
                                                                 work.keep);
  check_launch("mark_first");
  bytes = scratch.bytes;
  check(cub::DeviceSelect::Flagged(scratch.data, bytes, in, work.keep, out, work.kept_count, n,
                                   stream),
        "cub::DeviceSelect::Flagged");
}

void keep_strongest_counted_on_device(const Scratch& scratch, const StrongestWork& work,
                                      const Keypoint* in, const int* count, int capacity, int limit,
                                      Keypoint* out, cudaStream_t stream) {
  const int threads = 256, blocks = std::min(blocks_for(capacity, threads), 1024);
  gather_counted_responses<<<blocks, threads, 0, stream>>>(in, count, capacity, work.responses,
                                                           work.order, work.keep);
  check_launch("gather_counted_responses");
  size_t bytes = scratch.bytes;
  check(cub::DeviceRadixSort::SortPairsDescending(scratch.data, bytes, work.responses,
                                                  work.responses_sorted, work.order,
                                                  work.order_sorted, capacity, 0, 32, stream),
        "cub::DeviceRadixSort::SortPairsDescending");
  mark_first_counted<<<blocks, threads, 0, stream>>>(work.order_sorted, count, capacity, limit,
                                                     work.keep);
  check_launch("mark_first_counted");
  bytes = scratch.bytes;
  check(cub::DeviceSelect::Flagged(scratch.data, bytes, in, work.keep, out, work.kept_count,
                                   capacity, stream),
        "cub::DeviceSelect::Flagged");
}

}  // namespace gpusift::cuda
