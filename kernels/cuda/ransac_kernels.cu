// RANSAC on the device: a warp per hypothesis draws and solves its minimal sample with the shared
// code (gpusift/motion_models.h), counts its inliers, and the best (most inliers, then the lowest
// iteration) wins by one 64-bit atomic maximum.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.h"
#include "gpusift/motion_models.h"
#include "match_kernels.h"

namespace gpusift::cuda {

namespace {

constexpr int kWarpsPerBlock = 8;

__global__ void score_hypotheses_kernel(const PointPair* pairs, int count, MotionModel model,
                                        uint64_t seed, int iterations, double threshold_sq,
                                        unsigned long long* best_key) {
  const int iteration = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (iteration >= iterations)
    return;
  // Every lane solves the same hypothesis: the same bits, and no broadcast needed.
  double h[9];
  if (!ransac_hypothesis(pairs, count, model, seed, iteration, h))
    return;
  int inliers = 0;
  for (int i = lane; i < count; i += 32)
    inliers += is_inlier(h, pairs[i], threshold_sq);
  for (int offset = 16; offset > 0; offset >>= 1)
    inliers += __shfl_xor_sync(0xffffffffu, inliers, offset);
  if (lane == 0) {
    const unsigned long long key =
        (static_cast<unsigned long long>(inliers + 1) << 32) |
        (0xffffffffull - static_cast<unsigned long long>(static_cast<uint32_t>(iteration)));
    atomicMax(best_key, key);
  }
}

}  // namespace

void score_hypotheses(const PointPair* pairs, int count, const RansacParams& params,
                      unsigned long long* best_key, cudaStream_t stream) {
  const int blocks = (params.iterations + kWarpsPerBlock - 1) / kWarpsPerBlock;
  score_hypotheses_kernel<<<blocks, kWarpsPerBlock * 32, 0, stream>>>(
      pairs, count, params.model, params.seed, params.iterations,
      threshold_squared(params.threshold), best_key);
  check_launch("score RANSAC hypotheses");
}

}  // namespace gpusift::cuda
