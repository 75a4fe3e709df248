// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cstdint>

#include "bits_for.h"
#include "cuda_check.h"
#include "list_primitives.h"

namespace gpusift::cuda {

namespace {

// Each item's place is the number of items before it in (key, index) order, counted by brute
// force: a few thousand candidates take one short kernel this way, where a radix sort takes
// several passes over the whole padded list whatever its count.
constexpr int kRankWarps = 8;
constexpr int kRankThreads = kRankWarps * 32;
constexpr int kItemsPerBlock = 32;
constexpr int kStagedPerLane = 8;
constexpr int kStagedPerWarp = kStagedPerLane * 32;
// Past this the quadratic count costs more than the radix sort's passes.
constexpr int kRankSortMax = 16384;

// Counts, for the lane's item, the items of [begin, end) that come before it: the warp stages
// a chunk of composite keys in shared memory, and every lane then reads them all (broadcasts).
__device__ int count_before(uint64_t own, const uint64_t* keys_in, int begin, int end,
                            int index_bits, uint64_t* staged) {
  const int lane = threadIdx.x % 32;
  int before = 0;
  for (int chunk = begin; chunk < end; chunk += kStagedPerWarp) {
    __syncwarp();  // the previous chunk has been read
#pragma unroll
    for (int s = 0; s < kStagedPerLane; ++s) {
      const int j = chunk + lane + 32 * s;
      staged[lane + 32 * s] = j < end ? (keys_in[j] << index_bits) | j : ~uint64_t{0};
    }
    __syncwarp();
    const ulonglong2* pairs = reinterpret_cast<const ulonglong2*>(staged);
#pragma unroll 8
    for (int p = 0; p < kStagedPerWarp / 2; ++p) {
      const ulonglong2 two = pairs[p];
      before += (two.x < own) + (two.y < own);
    }
  }
  return before;
}

// Items [0, m) go to their ranks; the padded tail [m, n) is already in place.
__global__ void __launch_bounds__(kRankThreads)
    rank_sort_kernel(const uint64_t* keys_in, uint64_t* keys_out, const uint32_t* values_in,
                     uint32_t* values_out, const int* count, int n, int index_bits) {
  __shared__ __align__(16) uint64_t staged[kRankWarps][kStagedPerWarp];
  __shared__ int partial[kRankWarps][32];
  const int m = min(*count, n);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int i = blockIdx.x * kItemsPerBlock + lane;
  const bool real_block = static_cast<int>(blockIdx.x) * kItemsPerBlock < m;
  if (real_block) {
    const uint64_t own = i < m ? (keys_in[i] << index_bits) | i : 0;
    const int span = (m + kRankWarps - 1) / kRankWarps;
    const int begin = min(warp * span, m), end = min(begin + span, m);
    partial[warp][lane] = count_before(own, keys_in, begin, end, index_bits, staged[warp]);
    __syncthreads();
  }
  if (warp != 0 || i >= n)
    return;
  int rank = i;
  if (i < m) {
    rank = 0;
#pragma unroll
    for (int w = 0; w < kRankWarps; ++w)
      rank += partial[w][lane];
  }
  keys_out[rank] = keys_in[i];
  values_out[rank] = values_in[i];
}

}  // namespace

void sort_padded_by_key(const Scratch& scratch, const uint64_t* keys_in, uint64_t* keys_out,
                        const uint32_t* values_in, uint32_t* values_out, const int* count, int n,
                        int key_bits, cudaStream_t stream) {
  if (n == 0)
    return;
  const int index_bits = bits_for(n);
  if (n > kRankSortMax || key_bits + index_bits >= 64) {
    sort_by_key(scratch, keys_in, keys_out, values_in, values_out, n, key_bits, stream);
    return;
  }
  const int blocks = (n + kItemsPerBlock - 1) / kItemsPerBlock;
  rank_sort_kernel<<<blocks, kRankThreads, 0, stream>>>(keys_in, keys_out, values_in, values_out,
                                                        count, n, index_bits);
  check_launch("rank_sort_kernel");
}

}  // namespace gpusift::cuda
