// SPDX-License-Identifier: LGPL-2.1-or-later
// The selection of a match-and-fit job's matches on the device: the nearest query per train row
// by one atomic minimum per match, then an order-keeping compaction by one block, which writes
// the matches and their point pairs. Ties and order are the CPU's (keep_nearest_query_per_train).
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.h"
#include "match_kernels.h"

namespace gpusift::cuda {

namespace {

constexpr int kCompactThreads = 1024;
constexpr unsigned kFullMask = 0xffffffffu;

// A block scan over kCompactThreads threads of kPerThread consecutive queries each: all their
// loads are in flight together, and 4096 queries take one pass.
__global__ void compact_matches_kernel(const Decision* decisions, int query_count,
                                       unsigned long long* nearest_query_of_train,
                                       const PointXY* query_points, const PointXY* train_points,
                                       bool pairs_from_train, Match* matches, PointPair* pairs,
                                       int* match_count) {
  constexpr int kPerThread = 4;
  constexpr int kPerPass = kCompactThreads * kPerThread;
  __shared__ int warp_offsets[kCompactThreads / 32];
  __shared__ int pass_total;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int base = 0;
  for (int start = 0; start < query_count; start += kPerPass) {
    const int first = start + threadIdx.x * kPerThread;
    Decision d[kPerThread];
    bool keep[kPerThread];
    int kept = 0;
#pragma unroll
    for (int j = 0; j < kPerThread; ++j)
      d[j] = first + j < query_count ? decisions[first + j] : Decision{-1, 0.f};
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
      keep[j] = d[j].train >= 0 &&
                (!nearest_query_of_train ||
                 nearest_query_of_train[d[j].train] == nearest_query_key(d[j], first + j));
      kept += keep[j];
    }
    int inclusive = kept;
    for (int offset = 1; offset < 32; offset <<= 1) {
      const int below = __shfl_up_sync(kFullMask, inclusive, offset);
      if (lane >= offset)
        inclusive += below;
    }
    if (lane == 31)
      warp_offsets[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
      const int own = warp_offsets[lane];
      int warp_inclusive = own;
      for (int offset = 1; offset < 32; offset <<= 1) {
        const int below = __shfl_up_sync(kFullMask, warp_inclusive, offset);
        if (lane >= offset)
          warp_inclusive += below;
      }
      warp_offsets[lane] = warp_inclusive - own;
      if (lane == 31)
        pass_total = warp_inclusive;
    }
    __syncthreads();
    int k = base + warp_offsets[warp] + inclusive - kept;
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
      if (!keep[j])
        continue;
      const int query = first + j;
      matches[k] = Match{query, d[j].train, d[j].distance};
      const PointXY q = query_points[query], t = train_points[d[j].train];
      pairs[k] = pairs_from_train ? PointPair{t.x, t.y, q.x, q.y} : PointPair{q.x, q.y, t.x, t.y};
      ++k;
    }
    base += pass_total;
    __syncthreads();
  }
  // Every match has read its train row's entry: back to ~0 for the next job.
  if (nearest_query_of_train)
    for (int i = threadIdx.x; i < query_count; i += kCompactThreads)
      if (decisions[i].train >= 0)
        nearest_query_of_train[decisions[i].train] = ~0ull;
  if (threadIdx.x == 0)
    *match_count = base;
}

}  // namespace

void select_matches(const Decision* decisions, int query_count,
                    unsigned long long* nearest_query_of_train, const PointXY* query_points,
                    const PointXY* train_points, bool pairs_from_train, Match* matches,
                    PointPair* pairs, int* match_count, cudaStream_t stream) {
  compact_matches_kernel<<<1, kCompactThreads, 0, stream>>>(
      decisions, query_count, nearest_query_of_train, query_points, train_points, pairs_from_train,
      matches, pairs, match_count);
  check_launch("compact the matches");
}

}  // namespace gpusift::cuda
