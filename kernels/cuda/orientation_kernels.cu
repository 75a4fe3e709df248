#include "cuda_check.h"
#include "feature_kernels.h"
#include "fixed_point.h"
#include "gpusift/sift_orientation.h"

namespace gpusift::cuda {

namespace {

constexpr int kWarpsPerBlock = 4;

// Warps take candidates in turn; a warp's lanes share the window's samples and add them to a
// fixed-point histogram in shared memory.
__global__ void orientation_kernel(OctaveTable octaves, const Candidate* candidates,
                                   const uint64_t* sorted_keys, const uint32_t* sorted_indices,
                                   const int* count, int capacity, int first_octave, int* counts,
                                   float* angles) {
  __shared__ unsigned long long sums[kWarpsPerBlock][kOrientationBins];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int n = min(*count, capacity);
  for (int i = blockIdx.x * kWarpsPerBlock + warp; i < n; i += gridDim.x * kWarpsPerBlock) {
    if (i > 0 && sorted_keys[i] == sorted_keys[i - 1])
      continue;
    const Candidate c = candidates[sorted_indices[i]];
    for (int b = lane; b < kOrientationBins; b += 32)
      sums[warp][b] = 0;
    __syncwarp();

    const float scale_in_octave = c.keypoint.size * 0.5f / ldexpf(1.f, c.octave + first_octave);
    const OrientationWindow window = orientation_window(c.row, c.col, scale_in_octave);
    const FloatImageView level = octaves.gaussian[c.octave].layer(c.layer);
    const int side = 2 * window.radius + 1;
    const int total = side * side;
    for (int s = lane; s < total; s += 32) {
      int bin;
      float value;
      if (orientation_sample(level, window, s / side - window.radius, s % side - window.radius,
                             &bin, &value))
        add_fixed_point(&sums[warp][bin], value);
    }
    __syncwarp();
    if (lane == 0) {
      float raw[kOrientationBins], smoothed[kOrientationBins];
      for (int b = 0; b < kOrientationBins; ++b)
        raw[b] = from_fixed_point(sums[warp][b]);
      const float maximum = smooth_orientation_histogram(raw, smoothed);
      counts[i] = orientation_peaks(smoothed, maximum,
                                    angles + static_cast<size_t>(i) * kMaxOrientationPeaks);
    }
    __syncwarp();
  }
}

__global__ void emit_kernel(const Candidate* candidates, const uint32_t* sorted_indices,
                            const int* count, int capacity, const int* counts, const float* angles,
                            const int* offsets, Keypoint* keypoints, int keypoint_capacity,
                            int* emitted) {
  const int n = min(*count, capacity);
  const int first = blockIdx.x * blockDim.x + threadIdx.x;
  if (first == 0) {
    emitted[0] = offsets[n];
    emitted[1] = min(offsets[n], keypoint_capacity);
  }
  for (int i = first; i < n; i += gridDim.x * blockDim.x) {
    const Keypoint base = candidates[sorted_indices[i]].keypoint;
    for (int p = 0; p < counts[i]; ++p) {
      const int slot = offsets[i] + p;
      if (slot >= keypoint_capacity)
        break;
      Keypoint k = base;
      k.angle = angles[static_cast<size_t>(i) * kMaxOrientationPeaks + p];
      keypoints[slot] = k;
    }
  }
}

__global__ void pad_keys_kernel(uint64_t* keys, uint32_t* indices, const int* count, int capacity) {
  const uint64_t above_every_key = (uint64_t{1} << kCandidateKeyBits) - 1;
  for (int i = min(*count, capacity) + blockIdx.x * blockDim.x + threadIdx.x; i < capacity;
       i += gridDim.x * blockDim.x) {
    keys[i] = above_every_key;
    indices[i] = i;
  }
}

// Enough blocks of kWarpsPerBlock warps to fill the GPU a few times over: the candidate count is
// on the device, so the grid is sized for a typical list and its warps loop.
constexpr int kOrientationBlocks = 1024;
constexpr int kListBlocks = 256;
constexpr int kListThreads = 256;

}  // namespace

void pad_candidate_keys(const CandidateList& list, cudaStream_t stream) {
  pad_keys_kernel<<<kListBlocks, kListThreads, 0, stream>>>(list.keys, list.indices, list.count,
                                                            list.capacity);
  check_launch("pad_keys_kernel");
}

void assign_orientations(const OctaveTable& octaves, const Candidate* candidates,
                         const uint64_t* sorted_keys, const uint32_t* sorted_indices,
                         const int* count, int capacity, int first_octave, int* counts,
                         float* angles, cudaStream_t stream) {
  orientation_kernel<<<kOrientationBlocks, kWarpsPerBlock * 32, 0, stream>>>(
      octaves, candidates, sorted_keys, sorted_indices, count, capacity, first_octave, counts,
      angles);
  check_launch("orientation_kernel");
}

void emit_keypoints(const Candidate* candidates, const uint32_t* sorted_indices, const int* count,
                    int capacity, const int* counts, const float* angles, const int* offsets,
                    Keypoint* keypoints, int keypoint_capacity, int* emitted, cudaStream_t stream) {
  emit_kernel<<<kListBlocks, kListThreads, 0, stream>>>(candidates, sorted_indices, count, capacity,
                                                        counts, angles, offsets, keypoints,
                                                        keypoint_capacity, emitted);
  check_launch("emit_kernel");
}

}  // namespace gpusift::cuda
