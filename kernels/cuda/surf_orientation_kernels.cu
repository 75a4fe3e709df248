// SPDX-License-Identifier: LGPL-2.1-or-later
// Orientation of each candidate, one warp per candidate. Every float sum is taken in the CPU's
// order (samples in candidate order per degree, degrees and groups in window order), so the angle
// is the CPU's and the same on every run.
#include <algorithm>

#include "cuda_check.h"
#include "surf_kernels.h"

namespace gpusift::cuda {

namespace {

constexpr int kWarpsPerBlock = 4;
constexpr unsigned kFullWarp = 0xffffffffu;
constexpr int kSampleRounds = (kSurfOrientationCandidates + 31) / 32;

struct WarpWork {
  SurfDegreeBins bins;
  SurfDegreeGroupSums groups;
  SurfOrientationSample round[32];  // the samples of one round, by lane
};

// The canonical order's bin of a keypoint: its pixel column.
__device__ int column_bin(float x, int bins) {
  return min(max(static_cast<int>(floorf(x)), 0), bins - 1);
}

// Returns false, as the CPU, when no sample lies inside the frame.
__device__ bool orient(const IntegralImageView& sum, const SurfOrientationWindow& window,
                       const float* weights, WarpWork& work, int lane, float* angle) {
  for (int d = lane; d < kSurfOrientationDegrees; d += 32)
    work.bins.x[d] = work.bins.y[d] = 0.f;
  bool any = false;
  // Round r takes candidates 32 r + lane. Lanes whose samples share a degree form a group whose
  // lowest lane adds them in lane order: each bin receives its samples in candidate order.
  for (int r = 0; r < kSampleRounds; ++r) {
    const int c = r * 32 + lane;
    SurfOrientationSample s{0.f, 0.f, -1};
    const bool sampled =
        c < kSurfOrientationCandidates && surf_orientation_sample(sum, window, c, weights[c], &s);
    any = any || sampled;
    work.round[lane] = s;
    const unsigned peers = __match_any_sync(kFullWarp, sampled ? s.degree : -1);
    __syncwarp();
    if (sampled && __ffs(peers) - 1 == lane) {
      for (unsigned rest = peers; rest != 0; rest &= rest - 1)
        add_to_degree_bins(work.round[__ffs(rest) - 1], &work.bins);
    }
    __syncwarp();
  }
  if (!__any_sync(kFullWarp, any))
    return false;
  for (int g = lane; g < kSurfDegreeGroups; g += 32)
    work.groups.group[g] = degree_group_sum(work.bins, g);
  __syncwarp();
  // dominant_orientation's choice: the first window of the largest magnitude, if above 0.
  float best_magnitude = 0.f;
  int best = -1;
  for (int w = lane; w < kSurfOrientationWindows; w += 32) {
    const float magnitude = orientation_window_sum(work.bins, work.groups, w).magnitude_squared();
    if (magnitude > best_magnitude) {
      best_magnitude = magnitude;
      best = w;
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    const float other_magnitude = __shfl_down_sync(kFullWarp, best_magnitude, offset);
    const int other = __shfl_down_sync(kFullWarp, best, offset);
    if (other >= 0 && (best < 0 || other_magnitude > best_magnitude ||
                       (other_magnitude == best_magnitude && other < best))) {
      best_magnitude = other_magnitude;
      best = other;
    }
  }
  if (lane == 0)
    *angle = keypoint_angle_of(best >= 0 ? orientation_window_sum(work.bins, work.groups, best)
                                         : SurfWindowSum{0.f, 0.f});
  return true;
}

__global__ void orient_kernel(IntegralImageView sum, const SurfCandidate* candidates,
                              const int* candidate_count, int capacity, bool upright,
                              const SurfOrientationWeights* weights, Keypoint* keypoints,
                              SurfOrderWork work) {
  __shared__ float shared_weights[kSurfOrientationCandidates];
  __shared__ WarpWork warp_work[kWarpsPerBlock];
  const int n = min(*candidate_count, capacity);
  if (static_cast<int>(blockIdx.x) * kWarpsPerBlock >= n)
    return;
  for (int c = threadIdx.x; c < kSurfOrientationCandidates; c += blockDim.x)
    shared_weights[c] = weights->values[c];
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int i = blockIdx.x * kWarpsPerBlock + warp; i < n; i += gridDim.x * kWarpsPerBlock) {
    Keypoint k = candidates[i].keypoint;
    bool kept = true;
    if (upright) {
      k.angle = kSurfUprightAngle;
    } else {
      SurfOrientationWindow window;
      surf_orientation_window(k, sum.width, sum.height, &window);  // true: detection checked it
      kept = orient(sum, window, shared_weights, warp_work[warp], lane, &k.angle);
    }
    if (lane == 0) {
      keypoints[i] = k;
      const int b = kept ? column_bin(k.x, work.bins) : -1;
      work.candidate_bins[i] = b;
      if (kept)
        atomicAdd(&work.bin_counts[b], 1);
    }
    __syncwarp();
  }
}

}  // namespace

SurfOrientationWeights surf_orientation_weights() {
  SurfOrientationWeights w;
  for (int c = 0; c < kSurfOrientationCandidates; ++c)
    w.values[c] = surf_orientation_weight(c);
  return w;
}

void orient_surf_candidates(const IntegralImageView& sum, const SurfCandidate* candidates,
                            const int* candidate_count, int capacity, bool upright,
                            const SurfOrientationWeights* weights, Keypoint* keypoints,
                            const SurfOrderWork& work, cudaStream_t stream) {
  if (capacity == 0)
    return;
  const int blocks = std::min((capacity + kWarpsPerBlock - 1) / kWarpsPerBlock, kSurfMaxGridBlocks);
  orient_kernel<<<blocks, kWarpsPerBlock * 32, 0, stream>>>(
      sum, candidates, candidate_count, capacity, upright, weights, keypoints, work);
  check_launch("orient_kernel");
}

}  // namespace gpusift::cuda
