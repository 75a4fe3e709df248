// SPDX-License-Identifier: LGPL-2.1-or-later
// Launchers for detection, orientation and description on the GPU.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gpusift/image_view.h"
#include "gpusift/keypoint.h"
#include "gpusift/sift_extrema.h"
#include "gpusift/sift_params.h"

namespace gpusift::cuda {

constexpr int kMaxOctaves = 16;
constexpr int kMaxOrientationPeaks = 18;  // local maxima of 36 bins

// Every octave's DoG and Gaussian stacks, passed by value to the kernels.
struct OctaveTable {
  int count;
  LayerStackView dog[kMaxOctaves];
  LayerStackView gaussian[kMaxOctaves];
};

struct Candidate {
  Keypoint keypoint;    // angle unset
  int octave;           // pyramid index, 0-based
  int layer, row, col;  // refined integer location
};

// A candidate's sort key packs its octave, layer, row and column, most significant first, each
// field only as wide as the pyramid needs: the sort makes one pass per 8 bits of key.
struct CandidateKeyLayout {
  int row_shift, layer_shift, octave_shift;
  int bits;  // keys lie below (1 << bits) - 1, the padding of a list's unused tail
};
CandidateKeyLayout candidate_key_layout(int largest_width, int largest_height, int octave_layers,
                                        int octaves);

// Candidates go to slots taken with an atomic counter, in no fixed order; each carries a key
// unique to its refined location (equal keys are exact duplicates), which the caller sorts by.
struct CandidateList {
  Candidate* items;
  uint64_t* keys;
  uint32_t* indices;  // 0..n-1, the values sorted along with the keys
  int* count;         // may exceed capacity: the overflow
  int capacity;
  CandidateKeyLayout key;
};

// Octaves first to end - 1 of a table.
struct OctaveRange {
  int first, end;
};

// How many neighbouring rows a detect thread tests: the same candidates either way; tests choose.
enum class DetectRows { kForLaunchSize, kFour, kOne };

// Appends the refined extrema of the octaves in `range`. Launches on disjoint ranges may run
// concurrently into one list. Returns the rows each thread tested: 1 or 4, or 0 where the range
// has no interior to test.
int detect_extrema(const OctaveTable& octaves, OctaveRange range, const RefineSettings& refine,
                   float threshold, const CandidateList& out, cudaStream_t stream,
                   DetectRows rows = DetectRows::kForLaunchSize);

// Fills the unused tail of a candidate list, from min(*count, capacity) on, with keys above every
// real one, so that the whole list can be sorted without the host knowing the count.
void pad_candidate_keys(const CandidateList& list, cudaStream_t stream);

// How the orientation and descriptor histograms add up: the same bits either way; tests take
// the carry.
enum class HistogramSums { kHalvesWhereTheyFit, kAlwaysWithCarry };
// Whether a window of this many samples takes the halves (split_fixed_point.h): a bin takes at
// most one addition per sample, and the halves hold fewer than 2^15.
GPUSIFT_HD bool window_fits_halves(long long samples) {
  return samples < (1LL << 15);
}
GPUSIFT_HD bool square_window_fits_halves(int radius) {
  return window_fits_halves((2LL * radius + 1) * (2LL * radius + 1));
}

// For the sorted candidates 0..n-1, n = min(*count, capacity) (skipping repeats of a key), the
// orientation peaks: counts[i] angles in angles[i * kMaxOrientationPeaks ...]. All capacity + 1
// counts (the scan's input) are written: 0 for a repeated key and past the list.
void assign_orientations(const OctaveTable& octaves, const Candidate* candidates,
                         const uint64_t* sorted_keys, const uint32_t* sorted_indices,
                         const int* count, int capacity, int first_octave, int* counts,
                         float* angles, cudaStream_t stream,
                         HistogramSums sums = HistogramSums::kHalvesWhereTheyFit);

// Writes one keypoint per (candidate, peak) at offsets[i] + peak, up to keypoint_capacity, and
// the number of keypoints to emitted[0] (may exceed keypoint_capacity: the overflow) and
// min(that, keypoint_capacity) to emitted[1].
void emit_keypoints(const Candidate* candidates, const uint32_t* sorted_indices, const int* count,
                    int capacity, const int* counts, const float* angles, const int* offsets,
                    Keypoint* keypoints, int keypoint_capacity, int* emitted, cudaStream_t stream);

// How the descriptor kernel tells the host that rows have reached host memory, a chunk of
// kDescribedRowsPerChunk rows at a time, so that the host copies them on while later rows are
// made. rows_done holds a counter per chunk and ready a word per chunk (the device address of
// pinned memory), all zero beforehand. Once the last row of chunk c is written, ready[c] becomes
// n + 1, n = min(*count, capacity) the number of rows; with no rows, ready[0] becomes 1.
inline constexpr int kDescribedRowsPerChunk = 128;
struct DescribedRowSignals {
  int* rows_done = nullptr;
  int* ready = nullptr;
};
inline int described_row_chunks(int capacity) {
  return capacity > 0 ? (capacity + kDescribedRowsPerChunk - 1) / kDescribedRowsPerChunk : 1;
}

// Descriptor rows for keypoints[0..min(*count, capacity)) in the requested format (not kNone),
// to `descriptors` and, unless null, to `host_descriptors` (the device address of pinned memory:
// the rows cross the bus while other keypoints are described), signalling each chunk of them
// where `signals.ready` is set.
void describe_keypoints(const OctaveTable& octaves, const Keypoint* keypoints, const int* count,
                        int capacity, int first_octave, DescriptorFormat format, void* descriptors,
                        void* host_descriptors, cudaStream_t stream,
                        HistogramSums sums = HistogramSums::kHalvesWhereTheyFit,
                        const DescribedRowSignals& signals = {});

// The first min(*count, capacity) keypoints to `device_keypoints` and to the mapped pinned
// `host_keypoints`.
struct PublishTargets {
  Keypoint* device_keypoints;
  Keypoint* host_keypoints;  // device address of pinned memory
};
void publish_results(const Keypoint* keypoints, const int* count, int capacity,
                     const PublishTargets& targets, cudaStream_t stream);

}  // namespace gpusift::cuda
