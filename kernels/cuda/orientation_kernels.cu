#include "cuda_check.h"
#include "feature_kernels.h"
#include "gpusift/sift_orientation.h"
#include "split_fixed_point.h"

namespace gpusift::cuda {

namespace {

constexpr int kWarpsPerBlock = 4;

// Warps take candidates in turn; every lane of a warp adds its samples to a histogram of its own
// in shared memory (64-bit fixed point, plain adds: no atomics, no lanes waiting on one bin), and
// the lanes' histograms are summed at the end. Integer sums are the same whichever lane adds what
// and in which order.
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    orientation_kernel(OctaveTable octaves, const Candidate* candidates,
                       const uint64_t* sorted_keys, const uint32_t* sorted_indices,
                       const int* count, int capacity, int first_octave, int* counts,
                       float* angles) {
  // sums[warp][bin * 32 + lane]: a lane's bins are 256 bytes apart, so the lanes' 64-bit
  // accesses never share a bank pair whatever bins they hit.
  __shared__ unsigned long long sums[kWarpsPerBlock][kOrientationBins * 32];
  __shared__ float raw[kWarpsPerBlock][kOrientationBins];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned long long* const own = sums[warp];
  const int n = min(*count, capacity);
  for (int i = blockIdx.x * kWarpsPerBlock + warp; i < n; i += gridDim.x * kWarpsPerBlock) {
    if (i > 0 && sorted_keys[i] == sorted_keys[i - 1])
      continue;
    const Candidate c = candidates[sorted_indices[i]];
    __syncwarp();
    for (int b = 0; b < kOrientationBins; ++b)
      own[b * 32 + lane] = 0;

    const float scale_in_octave = c.keypoint.size * 0.5f / ldexpf(1.f, c.octave + first_octave);
    const OrientationWindow window = orientation_window(c.row, c.col, scale_in_octave);
    const FloatImageView level = octaves.gaussian[c.octave].layer(c.layer);
    // The part of the window with a gradient (orientation_sample rejects the image's border),
    // taken in row-major order by the lanes: lane l the samples l, l + 32, ..., two at a time so
    // that their loads overlap.
    const int r = window.radius;
    const int y0 = max(-r, 1 - window.row), y1 = min(r, level.height - 2 - window.row);
    const int x0 = max(-r, 1 - window.col), x1 = min(r, level.width - 2 - window.col);
    const int rows = y1 - y0 + 1, cols = x1 - x0 + 1;
    if (rows > 0 && cols > 0) {
      const int down32 = 32 / cols, right32 = 32 % cols;
      const int down64 = 64 / cols, right64 = 64 % cols;
      int y = lane / cols, x = lane % cols;  // sample lane + 64 m
      while (y < rows) {
        int y2 = y + down32, x2 = x + right32;  // sample lane + 64 m + 32
        if (x2 >= cols) {
          x2 -= cols;
          ++y2;
        }
        int bin, bin2;
        float value, value2;
        const bool ok = orientation_sample(level, window, y0 + y, x0 + x, &bin, &value);
        const bool ok2 =
            y2 < rows && orientation_sample(level, window, y0 + y2, x0 + x2, &bin2, &value2);
        if (ok)
          own[bin * 32 + lane] += to_fixed_point(value);
        if (ok2)
          own[bin2 * 32 + lane] += to_fixed_point(value2);
        y += down64;
        x += right64;
        if (x >= cols) {
          x -= cols;
          ++y;
        }
      }
    }
    __syncwarp();
    // Lane b sums bin b over the lanes, starting at a different lane each so that the 32 loads of
    // a step fall into different banks.
    for (int b = lane; b < kOrientationBins; b += 32) {
      unsigned long long sum = 0;
#pragma unroll 8
      for (int l = 0; l < 32; ++l)
        sum += own[b * 32 + ((l + b) & 31)];
      raw[warp][b] = from_fixed_point(sum);
    }
    __syncwarp();
    if (lane == 0) {
      float smoothed[kOrientationBins];
      const float maximum = smooth_orientation_histogram(raw[warp], smoothed);
      counts[i] = orientation_peaks(smoothed, maximum,
                                    angles + static_cast<size_t>(i) * kMaxOrientationPeaks);
    }
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

__global__ void pad_keys_kernel(uint64_t* keys, uint32_t* indices, const int* count, int capacity,
                                int key_bits) {
  const uint64_t above_every_key = (uint64_t{1} << key_bits) - 1;
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
                                                            list.capacity, list.key.bits);
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
