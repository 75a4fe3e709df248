// RANSAC on the device: a block per hypothesis draws and solves its minimal sample with the shared
// code (gpusift/motion_models.h), counts its inliers, and the best (most inliers, then the lowest
// iteration) wins by one 64-bit atomic maximum.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.h"
#include "gpusift/motion_models.h"
#include "match_kernels.h"

namespace gpusift::cuda {

namespace {

// A block per hypothesis: with a few thousand pairs, one warp each would leave most of the
// device idle on a run of 512 hypotheses.
constexpr int kThreads = 128;

__global__ void score_hypotheses_kernel(const PointPair* pairs, int count, MotionModel model,
                                        uint64_t seed, double threshold_sq,
                                        unsigned long long* best_key) {
  __shared__ int block_inliers;
  const int iteration = blockIdx.x;
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

}  // namespace

void score_hypotheses(const PointPair* pairs, int count, const RansacParams& params,
                      unsigned long long* best_key, cudaStream_t stream) {
  score_hypotheses_kernel<<<params.iterations, kThreads, 0, stream>>>(
      pairs, count, params.model, params.seed, threshold_squared(params.threshold), best_key);
  check_launch("score RANSAC hypotheses");
}

}  // namespace gpusift::cuda
