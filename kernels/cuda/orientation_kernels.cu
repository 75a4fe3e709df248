#include "cuda_check.h"
#include "feature_kernels.h"
#include "fixed_point.h"
#include "gpusift/sift_orientation.h"

namespace gpusift::cuda {

namespace {

constexpr int kWarpsPerBlock = 4;

// One warp per candidate; lanes share the window's samples and add them to a fixed-point
// histogram in shared memory.
__global__ void orientation_kernel(OctaveTable octaves, const Candidate* candidates,
                                   const uint64_t* sorted_keys, const uint32_t* sorted_indices,
                                   int n, int first_octave, int* counts, float* angles) {
  __shared__ unsigned long long sums[kWarpsPerBlock][kOrientationBins];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int i = blockIdx.x * kWarpsPerBlock + warp;
  if (i == n && lane == 0)
    counts[n] = 0;
  if (i >= n)
    return;
  if (i > 0 && sorted_keys[i] == sorted_keys[i - 1]) {
    if (lane == 0)
      counts[i] = 0;
    return;
  }
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
    if (orientation_sample(level, window, s / side - window.radius, s % side - window.radius, &bin,
                           &value))
      add_fixed_point(&sums[warp][bin], value);
  }
  __syncwarp();
  if (lane != 0)
    return;
  float raw[kOrientationBins], smoothed[kOrientationBins];
  for (int b = 0; b < kOrientationBins; ++b)
    raw[b] = from_fixed_point(sums[warp][b]);
  const float maximum = smooth_orientation_histogram(raw, smoothed);
  counts[i] =
      orientation_peaks(smoothed, maximum, angles + static_cast<size_t>(i) * kMaxOrientationPeaks);
}

__global__ void emit_kernel(const Candidate* candidates, const uint32_t* sorted_indices, int n,
                            const int* counts, const float* angles, const int* offsets,
                            Keypoint* keypoints, int capacity) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const Keypoint base = candidates[sorted_indices[i]].keypoint;
  for (int p = 0; p < counts[i]; ++p) {
    const int slot = offsets[i] + p;
    if (slot >= capacity)
      return;
    Keypoint k = base;
    k.angle = angles[static_cast<size_t>(i) * kMaxOrientationPeaks + p];
    keypoints[slot] = k;
  }
}

}  // namespace

void assign_orientations(const OctaveTable& octaves, const Candidate* candidates,
                         const uint64_t* sorted_keys, const uint32_t* sorted_indices, int n,
                         int first_octave, int* counts, float* angles, cudaStream_t stream) {
  const int blocks = (n + 1 + kWarpsPerBlock - 1) / kWarpsPerBlock;
  orientation_kernel<<<blocks, kWarpsPerBlock * 32, 0, stream>>>(
      octaves, candidates, sorted_keys, sorted_indices, n, first_octave, counts, angles);
  check_launch("orientation_kernel");
}

void emit_keypoints(const Candidate* candidates, const uint32_t* sorted_indices, int n,
                    const int* counts, const float* angles, const int* offsets, Keypoint* keypoints,
                    int capacity, cudaStream_t stream) {
  if (n == 0)
    return;
  const int threads = 128;
  emit_kernel<<<(n + threads - 1) / threads, threads, 0, stream>>>(
      candidates, sorted_indices, n, counts, angles, offsets, keypoints, capacity);
  check_launch("emit_kernel");
}

}  // namespace gpusift::cuda
