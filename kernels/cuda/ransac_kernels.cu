// SPDX-License-Identifier: LGPL-2.1-or-later
// RANSAC on the device: a block per hypothesis draws and solves its minimal sample with the shared
// code (gpusift/motion_models.h), counts its inliers, and the best (most inliers, then the lowest
// iteration) wins by one 64-bit atomic maximum. One block then scores the winner
// (gpusift/ransac_winner.h) for the host's refit. The pair count is read on the device, so that
// pairs selected by earlier kernels need no trip to the host.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.h"
#include "gpusift/motion_models.h"
#include "gpusift/ransac_winner.h"
#include "match_kernels.h"

namespace gpusift::cuda {

namespace {

// A block per hypothesis: with a few thousand pairs, one warp each would leave most of the
// device idle on a run of 512 hypotheses.
constexpr int kThreads = 128;

__global__ void score_hypotheses_kernel(const PointPair* pairs, const int* pair_count,
                                        MotionModel model, uint64_t seed, double threshold_sq,
                                        unsigned long long* best_key) {
  __shared__ int block_inliers;
  const int iteration = blockIdx.x;
  const int count = *pair_count;
  if (threadIdx.x == 0)
    block_inliers = 0;
  // Every thread solves the same hypothesis: the same bits, and no broadcast needed.
  double h[9];
  if (!ransac_hypothesis(pairs, count, model, seed, iteration, h))
    return;  // the whole block, alike
  __syncthreads();
  int inliers = 0;
  for (int i = threadIdx.x; i < count; i += kThreads)
    inliers += is_inlier(h, pairs[i], threshold_sq);
  for (int offset = 16; offset > 0; offset >>= 1)
    inliers += __shfl_xor_sync(0xffffffffu, inliers, offset);
  if (threadIdx.x % 32 == 0)
    atomicAdd(&block_inliers, inliers);
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned long long key =
        (static_cast<unsigned long long>(block_inliers + 1) << 32) |
        (0xffffffffull - static_cast<unsigned long long>(static_cast<uint32_t>(iteration)));
    atomicMax(best_key, key);
  }
}

// kWinnerBlocks blocks of kWinnerThreads: thread t of block b is lane b * kWinnerThreads + t.
// Each block sums its lanes by the tree; the last block to finish adds the blocks in order.
__global__ void score_winner_kernel(const PointPair* pairs, const int* pair_count,
                                    MotionModel model, uint64_t seed, double threshold_sq,
                                    RansacScratch* scratch, RansacWinner* winner, uint8_t* mask) {
  constexpr int kTotals = kMotionSumCount + 1;  // the sums, then the cost
  __shared__ double lane_values[kTotals][kWinnerThreads];
  __shared__ int block_inliers;
  __shared__ bool last_block;
  const int t = threadIdx.x, block = blockIdx.x;
  const int count = *pair_count;
  const unsigned long long key = scratch->best_key;
  const int best_inliers = static_cast<int>(key >> 32) - 1;
  const int iteration = static_cast<int>(0xffffffffull - (key & 0xffffffffull));
  RansacWinner found{};
  if (key == 0 || best_inliers < minimal_sample_size(model) ||
      !ransac_hypothesis(pairs, count, model, seed, iteration, found.h) ||
      !minimal_sample_mean(pairs, count, model, seed, iteration, found.reference)) {
    if (block == 0 && t == 0)
      winner->found = 0;
    return;  // every block, alike
  }
  if (t == 0)
    block_inliers = 0;
  WinnerLane mine;
  for (int i = block * kWinnerThreads + t; i < count; i += kWinnerLanes)
    mask[i] = score_into_lane(found.h, pairs[i], found.reference, threshold_sq, &mine);
  for (int k = 0; k < kMotionSumCount; ++k)
    lane_values[k][t] = mine.sums[k];
  lane_values[kMotionSumCount][t] = mine.cost;
  __syncthreads();
  atomicAdd(&block_inliers, mine.inliers);
  // The steps of a level spread over all threads (total, lane), not 25 in a row on a few.
  for (int stride = kWinnerThreads / 2; stride > 0; stride /= 2) {
    for (int step = t; step < kTotals * stride; step += kWinnerThreads)
      add_tree_step(lane_values[step / stride], step % stride, stride);
    __syncthreads();
  }
  if (t < kTotals)
    scratch->block_totals[block][t] = lane_values[t][0];
  if (t == 0)
    scratch->block_inliers[block] = block_inliers;
  __threadfence();
  __syncthreads();
  if (t == 0)
    last_block = atomicAdd(&scratch->blocks_done, 1u) == kWinnerBlocks - 1;
  __syncthreads();
  if (!last_block)
    return;
  __threadfence();
  const volatile RansacScratch* done = scratch;
  if (t < kTotals) {
    double total = 0;
    for (int b = 0; b < kWinnerBlocks; ++b)
      total = total + done->block_totals[b][t];
    if (t < kMotionSumCount)
      winner->sums[t] = total;
    else
      winner->cost = total;
  } else if (t == kTotals) {
    int inliers = 0;
    for (int b = 0; b < kWinnerBlocks; ++b)
      inliers += done->block_inliers[b];
    winner->inliers = inliers;
    for (int i = 0; i < 9; ++i)
      winner->h[i] = found.h[i];
    for (int i = 0; i < 4; ++i)
      winner->reference[i] = found.reference[i];
    winner->found = 1;
  }
}

}  // namespace

void score_hypotheses(const PointPair* pairs, const int* count, const RansacParams& params,
                      RansacScratch* scratch, cudaStream_t stream) {
  score_hypotheses_kernel<<<params.iterations, kThreads, 0, stream>>>(
      pairs, count, params.model, params.seed, threshold_squared(params.threshold),
      &scratch->best_key);
  check_launch("score RANSAC hypotheses");
}

void score_winner(const PointPair* pairs, const int* count, const RansacParams& params,
                  RansacScratch* scratch, RansacWinner* winner, uint8_t* mask,
                  cudaStream_t stream) {
  static_assert(kWinnerThreads > kMotionSumCount + 1, "a thread per total, and one for the rest");
  score_winner_kernel<<<kWinnerBlocks, kWinnerThreads, 0, stream>>>(
      pairs, count, params.model, params.seed, threshold_squared(params.threshold), scratch, winner,
      mask);
  check_launch("score the RANSAC winner");
}

}  // namespace gpusift::cuda
