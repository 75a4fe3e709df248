// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cuda_check.h"
#include "feature_kernels.h"
#include "gpusift/sift_orientation.h"
#include "split_fixed_point.h"

namespace gpusift::cuda {

namespace {

// A candidate's window goes to a block of kWarpsPerCandidate warps: at a few thousand candidates
// a frame, one warp each would leave most of the GPU idle while each warp waits on its own
// samples.
constexpr int kWarpsPerCandidate = 4;
constexpr int kCandidateThreads = kWarpsPerCandidate * 32;
// Blocks a multiprocessor: the kernel waits on its samples' loads and transcendentals, so more
// warps pay (H100, ncu, 4K: 29 us with per-lane histograms, 37 KiB a block and 5 blocks; 20 us
// with 8 blocks and 19 with 10). Twelve would spill registers.
constexpr int kOrientationBlocksPerMultiprocessor = 10;

// A thread's samples of the window, kSamplesAtOnce at a time: samples t, t + kCandidateThreads,
// ... of the window's row-major order, so that the loads and the transcendentals of several
// samples overlap.
constexpr int kSamplesAtOnce = 4;

// The block's histogram is kept in kCopies copies per warp, lane l adding to copy l % kCopies:
// lanes that share a copy take samples kCopies apart in the window's row-major order, whose bins
// differ more often than neighbours' do. A copy's bins lie kCopyStride words apart, so that
// different copies' bins mostly fall into different banks. Each bin is a 64-bit fixed-point sum
// kept as two 32-bit words (split_fixed_point.h), added with the native shared-memory atomics.
constexpr int kCopies = 8;
constexpr int kCopyStride = kOrientationBins + 1;
constexpr int kHistogramWords = kWarpsPerCandidate * kCopies * kCopyStride;

struct WindowWalk {
  int rows, cols;
  int down, right;  // the step of kCandidateThreads samples, in rows and columns
  __device__ void advance(int* y, int* x) const {
    *y += down;
    *x += right;
    if (*x >= cols) {
      *x -= cols;
      ++*y;
    }
  }
};

// The addends stay below 2^33: weighted gradient magnitudes below 512 (levels of values in 0..255
// give at most 255 * sqrt(2)).
template <HistogramSums kSums>
__device__ bool takes_halves(int rows, int cols) {
  return kSums == HistogramSums::kHalvesWhereTheyFit &&
         window_fits_halves(static_cast<long long>(rows) * cols);
}

template <bool kHalves>
__device__ void add_window_samples(const FloatImageView& level, const OrientationWindow& window,
                                   int y0, const WindowWalk& walk, int x0, unsigned* low,
                                   unsigned* high) {
  int y = threadIdx.x / walk.cols, x = threadIdx.x % walk.cols;
  while (y < walk.rows) {
    int bins[kSamplesAtOnce];
    float values[kSamplesAtOnce];
    bool ok[kSamplesAtOnce];
#pragma unroll
    for (int k = 0; k < kSamplesAtOnce; ++k) {
      ok[k] =
          y < walk.rows && orientation_sample(level, window, y0 + y, x0 + x, &bins[k], &values[k]);
      walk.advance(&y, &x);
    }
#pragma unroll
    for (int k = 0; k < kSamplesAtOnce; ++k) {
      if (!ok[k])
        continue;
      const unsigned long long addend = to_fixed_point(values[k]);
      if (kHalves)
        add_fixed_point_halves(&low[bins[k]], &high[bins[k]], addend);
      else
        add_split_fixed_point(&low[bins[k]], &high[bins[k]], addend);
    }
  }
}

// Lane b smooths bins b and b + 32, the warp finds the maximum, and each peak's lane writes its
// angle at its rank among the peaks: the peaks in bin order, as orientation_peaks() gives them.
__device__ int write_peaks(const float* raw, float* smoothed, float* angles) {
  const int lane = threadIdx.x % 32;
  constexpr int kSecondBins = kOrientationBins - 32;
  static_assert(kSecondBins > 0 && kSecondBins <= 32, "two bins per lane");
  const bool second = lane < kSecondBins;
  smoothed[lane] = smoothed_orientation_bin(raw, lane);
  if (second)
    smoothed[32 + lane] = smoothed_orientation_bin(raw, 32 + lane);
  float maximum = second ? fmaxf(smoothed[lane], smoothed[32 + lane]) : smoothed[lane];
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    maximum = fmaxf(maximum, __shfl_xor_sync(0xffffffffu, maximum, offset));
  __syncwarp();
  const float threshold = maximum * kOrientationPeakRatio;
  float angle = 0.f, second_angle = 0.f;
  const bool peak = orientation_peak(smoothed, lane, threshold, &angle);
  const bool second_peak =
      second && orientation_peak(smoothed, 32 + lane, threshold, &second_angle);
  const unsigned peaks = __ballot_sync(0xffffffffu, peak);
  const unsigned second_peaks = __ballot_sync(0xffffffffu, second_peak);
  const unsigned below = (1u << lane) - 1u;
  if (peak)
    angles[__popc(peaks & below)] = angle;
  if (second_peak)
    angles[__popc(peaks) + __popc(second_peaks & below)] = second_angle;
  return __popc(peaks) + __popc(second_peaks);
}

// Blocks take candidates in turn; the threads add their samples to the block's histogram copies,
// which are summed at the end. Integer sums are the same whichever thread adds what and in which
// order.
template <HistogramSums kSums>
__global__ void __launch_bounds__(kCandidateThreads, kOrientationBlocksPerMultiprocessor)
    orientation_kernel(OctaveTable octaves, const Candidate* candidates,
                       const uint64_t* sorted_keys, const uint32_t* sorted_indices,
                       const int* count, int capacity, int first_octave, int* counts,
                       float* angles) {
  __shared__ unsigned low[kHistogramWords];
  __shared__ unsigned high[kHistogramWords];
  __shared__ float raw[kOrientationBins];
  __shared__ float smoothed[kOrientationBins];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int copy = (warp * kCopies + lane % kCopies) * kCopyStride;
  const int n = min(*count, capacity);
  // Every count of the scan's capacity + 1 is written: 0 past the list and for repeated keys.
  for (int i = n + blockIdx.x * blockDim.x + threadIdx.x; i <= capacity;
       i += gridDim.x * blockDim.x)
    counts[i] = 0;
  for (int i = blockIdx.x; i < n; i += gridDim.x) {
    if (i > 0 && sorted_keys[i] == sorted_keys[i - 1]) {
      if (threadIdx.x == 0)
        counts[i] = 0;
      continue;
    }
    const Candidate c = candidates[sorted_indices[i]];
    for (int w = threadIdx.x; w < kHistogramWords; w += kCandidateThreads) {
      low[w] = 0;
      high[w] = 0;
    }
    __syncthreads();

    const float scale_in_octave = c.keypoint.size * 0.5f / ldexpf(1.f, c.octave + first_octave);
    const OrientationWindow window = orientation_window(c.row, c.col, scale_in_octave);
    const FloatImageView level = octaves.gaussian[c.octave].layer(c.layer);
    // The part of the window with a gradient (orientation_sample rejects the image's border).
    const int r = window.radius;
    const int y0 = max(-r, 1 - window.row), y1 = min(r, level.height - 2 - window.row);
    const int x0 = max(-r, 1 - window.col), x1 = min(r, level.width - 2 - window.col);
    const int rows = y1 - y0 + 1, cols = x1 - x0 + 1;
    if (rows > 0 && cols > 0) {
      const WindowWalk walk{rows, cols, kCandidateThreads / cols, kCandidateThreads % cols};
      if (takes_halves<kSums>(rows, cols))
        add_window_samples<true>(level, window, y0, walk, x0, low + copy, high + copy);
      else
        add_window_samples<false>(level, window, y0, walk, x0, low + copy, high + copy);
    }
    __syncthreads();
    if (warp == 0) {
      const bool halves = takes_halves<kSums>(max(rows, 0), max(cols, 0));
      for (int b = lane; b < kOrientationBins; b += 32) {
        unsigned long long sum = 0;
        for (int k = 0; k < kWarpsPerCandidate * kCopies; ++k) {
          const int word = k * kCopyStride + b;
          sum += halves ? fixed_point_halves_sum(low[word], high[word])
                        : split_fixed_point_sum(low[word], high[word]);
        }
        raw[b] = from_fixed_point(sum);
      }
      __syncwarp();
      const int peaks =
          write_peaks(raw, smoothed, angles + static_cast<size_t>(i) * kMaxOrientationPeaks);
      if (lane == 0)
        counts[i] = peaks;
    }
    __syncthreads();  // the next candidate reuses the histogram
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

// Enough blocks to fill the GPU (10 a multiprocessor: 1320 on an H100): the candidate count is
// on the device, so the grid is sized for a typical list and its blocks loop.
constexpr int kOrientationBlocks = 2048;
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
                         float* angles, cudaStream_t stream, HistogramSums sums) {
  // The carry alone is a second instance, so that the product's kernel carries no switch.
  auto* kernel = sums == HistogramSums::kHalvesWhereTheyFit
                     ? orientation_kernel<HistogramSums::kHalvesWhereTheyFit>
                     : orientation_kernel<HistogramSums::kAlwaysWithCarry>;
  kernel<<<kOrientationBlocks, kCandidateThreads, 0, stream>>>(octaves, candidates, sorted_keys,
                                                               sorted_indices, count, capacity,
                                                               first_octave, counts, angles);
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
