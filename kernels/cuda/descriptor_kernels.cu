// SPDX-License-Identifier: LGPL-2.1-or-later
#include <algorithm>
#include <cstdint>
#include <cub/block/block_scan.cuh>

#include "cuda_check.h"
#include "feature_kernels.h"
#include "gpusift/sift_descriptor.h"
#include "split_fixed_point.h"

namespace gpusift::cuda {

namespace {

// Two threads per descriptor value: the window's rows go to twice the warps, which halves a
// keypoint's time where there are fewer keypoints than the GPU holds blocks of them.
constexpr int kThreadsPerKeypoint = 2 * kDescriptorLength;
constexpr int kWarpsPerKeypoint = kThreadsPerKeypoint / 32;
constexpr int kWarpsPerValueSet = kDescriptorLength / 32;

// The block's histogram is kept in kHistogramCopies copies, lanes 8c..8c+7 of every warp adding
// to copy c; and lane l adds its sample's 8 slots in the order k ^ (l & 7). So at each of the 8
// atomic steps the 32 lanes of a warp address 32 different words even when they all fall into one
// cell and orientation bin (neighbouring pixels usually do), and since a copy is 360 = 8 (mod 32)
// words long, those 32 words then lie in 32 different banks.
constexpr int kHistogramCopies = 4;
constexpr int kLanesPerCopy = 32 / kHistogramCopies;
static_assert(kLanesPerCopy == 8, "one lane of a copy's group per contribution slot");

// Narrows [*lo, *hi] to the j where |a * j + b| < h can hold, widened by `margin` so that
// rounding never drops a sample; descriptor_sample makes the exact test. `reach` bounds |j|.
__device__ __forceinline__ void narrow_span(float a, float b, float h, float reach, float margin,
                                            float* lo, float* hi) {
  if (fabsf(a) * reach <= 1.f) {
    // |a * j| <= 1 over the window: only b decides.
    if (fabsf(b) >= h + 1.5f) {
      *lo = 1.f;
      *hi = -1.f;
    }
    return;
  }
  const float x0 = (-h - b) / a, x1 = (h - b) / a;
  *lo = fmaxf(*lo, fminf(x0, x1) - margin);
  *hi = fminf(*hi, fmaxf(x0, x1) + margin);
}

// The columns j in [j_min, j_max] of row i whose samples can fall into the descriptor's rotated
// square (|c_rot| and |r_rot| below d / 2 + 1 / 2 cells): about half of the (2r+1)^2 window.
__device__ __forceinline__ void descriptor_row_span(const DescriptorWindow& w, int i, int j_min,
                                                    int j_max, int* first, int* last) {
  const float h = kDescriptorWidth * 0.5f + 0.5f;
  const float reach = static_cast<float>(w.radius) + 1.f;
  const float margin = 1.f + 1e-6f * reach * reach;
  float lo = -reach, hi = reach;
  narrow_span(w.cos_t, -static_cast<float>(i) * w.sin_t, h, reach, margin, &lo, &hi);  // c_rot
  narrow_span(w.sin_t, static_cast<float>(i) * w.cos_t, h, reach, margin, &lo, &hi);   // r_rot
  if (!(lo <= hi)) {
    *first = 1;
    *last = 0;
    return;
  }
  *first = max(j_min, static_cast<int>(floorf(lo)));
  *last = min(j_max, static_cast<int>(ceilf(hi)));
}

// A lane's order of a sample's 8 contribution slots: slot k ^ flip at step k, in histogram copy
// `copy`. The word offset of that slot from the contribution's base is
// descriptor_slot_offset(flip) plus, per set bit of k, that bit's offset, negated where flip has
// the bit.
struct SlotOrder {
  int flip;
  int first;    // copy * kDescriptorHistLength + descriptor_slot_offset(flip)
  int step[3];  // +-descriptor_slot_offset(1 << b)

  __device__ __forceinline__ SlotOrder(int flip_bits, int copy) : flip(flip_bits) {
    first = copy * kDescriptorHistLength + descriptor_slot_offset(flip);
#pragma unroll
    for (int b = 0; b < 3; ++b)
      step[b] =
          (flip & (1 << b)) ? -descriptor_slot_offset(1 << b) : descriptor_slot_offset(1 << b);
  }
  __device__ __forceinline__ int offset(int k) const {
    return first + ((k & 1) ? step[0] : 0) + ((k & 2) ? step[1] : 0) + ((k & 4) ? step[2] : 0);
  }
};

// Adds one sample's 8 weights to the lane's histogram copy in the lane's slot order, as halves
// (kHalves) or with the carry.
template <bool kHalves>
__device__ __forceinline__ void add_contribution(const DescriptorContribution& c,
                                                 const SlotOrder& order, unsigned* low,
                                                 unsigned* high) {
  // w[k] = c.w[k ^ flip], by conditional swaps per bit of flip (registers, no local memory).
  float w[8];
#pragma unroll
  for (int k = 0; k < 8; ++k)
    w[k] = c.w[k];
#pragma unroll
  for (int bit = 1; bit < 8; bit <<= 1) {
    const bool swap = (order.flip & bit) != 0;
    float v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k)
      v[k] = swap ? w[k ^ bit] : w[k];
#pragma unroll
    for (int k = 0; k < 8; ++k)
      w[k] = v[k];
  }
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const int word = c.base + order.offset(k);
    if (kHalves)
      add_fixed_point_halves(&low[word], &high[word], to_fixed_point(w[k]));
    else
      add_split_fixed_point(&low[word], &high[word], to_fixed_point(w[k]));
  }
}

// A chunk of the window's rows, laid out sample by sample: the chunk's row r holds its samples
// start[r] .. start[r + 1] - 1, from column first[r] on.
struct SampleRows {
  int start[kThreadsPerKeypoint];
  int first[kThreadsPerKeypoint];
};
using SampleScan = cub::BlockScan<int, kThreadsPerKeypoint>;

// The block's threads take the window's samples in turn, chunk by chunk of rows, so that every
// lane has a sample however short the rows (a warp per row left half the lanes idle on the small
// keypoints' rows), and each row's span is worked out once, by one thread, instead of by a whole
// warp. Neighbouring lanes mostly take neighbouring columns of one row: coalesced loads.
template <bool kHalves>
__device__ __forceinline__ void add_window(const FloatImageView& level,
                                           const DescriptorWindow& window, int i_min, int i_max,
                                           int j_min, int j_max, const SlotOrder& order,
                                           unsigned* low, unsigned* high, SampleRows& rows,
                                           SampleScan::TempStorage& scan) {
  const int t = threadIdx.x;
  for (int chunk = i_min; chunk <= i_max; chunk += kThreadsPerKeypoint) {
    int first = 0, last = -1;
    if (chunk + t <= i_max)
      descriptor_row_span(window, chunk + t, j_min, j_max, &first, &last);
    int start = 0, samples = 0;
    SampleScan(scan).ExclusiveSum(max(last - first + 1, 0), start, samples);
    rows.start[t] = start;
    rows.first[t] = first;
    __syncthreads();
    for (int s = t; s < samples; s += kThreadsPerKeypoint) {
      // The last row that starts at or before s: the rows after it start past s.
      int r = 0;
#pragma unroll
      for (int step = kThreadsPerKeypoint / 2; step > 0; step /= 2) {
        if (rows.start[r + step] <= s)
          r += step;
      }
      DescriptorContribution c;
      if (descriptor_sample(level, window, chunk + r, rows.first[r] + s - rows.start[r], &c))
        add_contribution<kHalves>(c, order, low, high);
    }
    __syncthreads();  // the next chunk's rows replace these
  }
}

// The block's sum of one value per thread, in a fixed order (a butterfly within each warp, then
// the warps' sums pairwise), so that every run gives the same bits. `partial` holds a value per
// warp.
__device__ float block_sum(float value, float* partial) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    value = __fadd_rn(value, __shfl_xor_sync(0xffffffffu, value, offset));
  if (threadIdx.x % 32 == 0)
    partial[threadIdx.x / 32] = value;
  __syncthreads();
  // Warps 4..7 hold the same values as warps 0..3.
  static_assert(kWarpsPerValueSet == 4, "the warps' sums are added pairwise");
  const float total =
      __fadd_rn(__fadd_rn(partial[0], partial[1]), __fadd_rn(partial[2], partial[3]));
  __syncthreads();  // the next sum reuses `partial`
  return total;
}

// Thread t's value of the descriptor from the block's histogram, normalised (and made RootSIFT)
// by the block: the values' sums are block reductions rather than one thread's loop over all 128.
__device__ float described_value(const float* hist, DescriptorFormat format, float* partial) {
  float value = folded_descriptor_value(hist, threadIdx.x % kDescriptorLength);
  const float clamp = descriptor_clamp(block_sum(__fmul_rn(value, value), partial));
  value = min_of(value, clamp);
  value = __fmul_rn(value, descriptor_unit_scale(block_sum(__fmul_rn(value, value), partial)));
  if (format == DescriptorFormat::kRootSift)
    value = rootsift_value(value, block_sum(fabsf(value), partial));
  return value;
}

__device__ void write_descriptor_value(float value, size_t index, DescriptorFormat format,
                                       void* descriptors, void* host_descriptors) {
  if (format == DescriptorFormat::kUint8) {
    const uint8_t byte = descriptor_byte(value);
    static_cast<uint8_t*>(descriptors)[index] = byte;
    if (host_descriptors)
      static_cast<uint8_t*>(host_descriptors)[index] = byte;
  } else {
    static_cast<float*>(descriptors)[index] = value;
    if (host_descriptors)
      static_cast<float*>(host_descriptors)[index] = value;
  }
}

// The host's word of a chunk, after every store made visible to this thread is released to the
// host: `rows` + 1, so that even a frame without rows sets a word.
__device__ void signal_chunk_ready(const DescribedRowSignals& signals, int chunk, int rows) {
  __threadfence_system();
  *static_cast<volatile int*>(&signals.ready[chunk]) = rows + 1;
}

// Thread 0 of a block, once its row is written: the block's stores are released before the
// chunk's count, and the block that completes the chunk releases all of them to the host.
__device__ void count_described_row(const DescribedRowSignals& signals, int row, int rows) {
  const int chunk = row / kDescribedRowsPerChunk;
  const int in_chunk = min(kDescribedRowsPerChunk, rows - chunk * kDescribedRowsPerChunk);
  __threadfence();
  if (atomicAdd(&signals.rows_done[chunk], 1) + 1 == in_chunk)
    signal_chunk_ready(signals, chunk, rows);
}

// Blocks take keypoints in turn. A block's warps take the window's rows in turn, the lanes of a
// warp neighbouring columns of the row (coalesced loads), only the columns that can fall into the
// descriptor; each sample's trilinear contributions go to a fixed-point histogram in shared
// memory, whose integer sums are the same whichever thread adds what and in which order.
__global__ void __launch_bounds__(kThreadsPerKeypoint, 6)
    descriptor_kernel(OctaveTable octaves, const Keypoint* keypoints, const int* count,
                      int capacity, int first_octave, DescriptorFormat format, void* descriptors,
                      void* host_descriptors, HistogramSums sums, DescribedRowSignals signals) {
  __shared__ unsigned low[kHistogramCopies * kDescriptorHistLength];
  __shared__ unsigned high[kHistogramCopies * kDescriptorHistLength];
  __shared__ float hist[kDescriptorHistLength];
  __shared__ float partial[kWarpsPerKeypoint];
  __shared__ SampleRows sample_rows;
  __shared__ SampleScan::TempStorage scan;
  const int t = threadIdx.x, lane = t % 32;

  // Lanes 8c..8c+7 add to histogram copy c, lane l in slot order l % 8.
  const SlotOrder order(lane % kLanesPerCopy, lane / kLanesPerCopy);

  const int n = min(*count, capacity);
  if (signals.ready && n == 0 && blockIdx.x == 0 && t == 0)
    signal_chunk_ready(signals, 0, 0);
  for (int row = blockIdx.x; row < n; row += gridDim.x) {
    for (int b = t; b < kHistogramCopies * kDescriptorHistLength; b += kThreadsPerKeypoint) {
      low[b] = 0;
      high[b] = 0;
    }
    __syncthreads();

    const Keypoint k = keypoints[row];
    const UnpackedOctave packed = unpack_octave(k.octave);
    const FloatImageView level = octaves.gaussian[packed.octave - first_octave].layer(packed.layer);
    const DescriptorWindow window =
        descriptor_window(k.x * packed.scale, k.y * packed.scale, k.angle,
                          k.size * packed.scale * 0.5f, level.width, level.height);
    // Rows and columns with a gradient (descriptor_sample rejects the image's border).
    const int r = window.radius;
    const int i_min = max(-r, 1 - window.row), i_max = min(r, level.height - 2 - window.row);
    const int j_min = max(-r, 1 - window.col), j_max = min(r, level.width - 2 - window.col);
    const bool halves = sums == HistogramSums::kHalvesWhereTheyFit && square_window_fits_halves(r);
    if (halves)
      add_window<true>(level, window, i_min, i_max, j_min, j_max, order, low, high, sample_rows,
                       scan);
    else
      add_window<false>(level, window, i_min, i_max, j_min, j_max, order, low, high, sample_rows,
                        scan);
    __syncthreads();
    for (int b = t; b < kDescriptorHistLength; b += kThreadsPerKeypoint) {
      unsigned long long sum = 0;
      for (int copy = 0; copy < kHistogramCopies; ++copy) {
        const unsigned low_word = low[copy * kDescriptorHistLength + b];
        const unsigned high_word = high[copy * kDescriptorHistLength + b];
        sum += halves ? fixed_point_halves_sum(low_word, high_word)
                      : split_fixed_point_sum(low_word, high_word);
      }
      hist[b] = from_fixed_point(sum);
    }
    __syncthreads();
    const float value = described_value(hist, format, partial);
    if (t < kDescriptorLength)
      write_descriptor_value(value, static_cast<size_t>(row) * kDescriptorLength + t, format,
                             descriptors, host_descriptors);
    if (signals.ready) {
      __syncthreads();
      if (t == 0)
        count_described_row(signals, row, n);
    }
  }
}

// The grid of the descriptor kernel: enough resident blocks for the GPU, looping when a frame
// has more keypoints.
constexpr int kDescriptorBlocks = 4096;

// Copied as 32-bit words, a word per thread: a keypoint per thread made seven stores 28 bytes
// apart, which the host's copy, across PCIe, paid for most (14 us for 3500 keypoints on an H100).
constexpr int kKeypointWords = sizeof(Keypoint) / sizeof(uint32_t);
static_assert(sizeof(Keypoint) % sizeof(uint32_t) == 0 && alignof(Keypoint) >= alignof(uint32_t));

__global__ void publish_kernel(const Keypoint* keypoints, const int* count, int capacity,
                               PublishTargets targets) {
  const int words = min(*count, capacity) * kKeypointWords;
  const auto* from = reinterpret_cast<const uint32_t*>(keypoints);
  auto* to_device = reinterpret_cast<uint32_t*>(targets.device_keypoints);
  auto* to_host = reinterpret_cast<uint32_t*>(targets.host_keypoints);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += gridDim.x * blockDim.x) {
    const uint32_t word = from[i];
    to_device[i] = word;
    to_host[i] = word;
  }
}

constexpr int kPublishBlocks = 264;
constexpr int kPublishThreads = 256;

}  // namespace

void describe_keypoints(const OctaveTable& octaves, const Keypoint* keypoints, const int* count,
                        int capacity, int first_octave, DescriptorFormat format, void* descriptors,
                        void* host_descriptors, cudaStream_t stream, HistogramSums sums,
                        const DescribedRowSignals& signals) {
  if (capacity == 0)
    return;
  descriptor_kernel<<<std::min(capacity, kDescriptorBlocks), kThreadsPerKeypoint, 0, stream>>>(
      octaves, keypoints, count, capacity, first_octave, format, descriptors, host_descriptors,
      sums, signals);
  check_launch("descriptor_kernel");
}

void publish_results(const Keypoint* keypoints, const int* count, int capacity,
                     const PublishTargets& targets, cudaStream_t stream) {
  publish_kernel<<<kPublishBlocks, kPublishThreads, 0, stream>>>(keypoints, count, capacity,
                                                                 targets);
  check_launch("publish_kernel");
}

}  // namespace gpusift::cuda
