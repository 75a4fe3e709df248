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

// Candidates go to slots taken with an atomic counter, in no fixed order; each carries a key
// unique to its refined location (equal keys are exact duplicates), which the caller sorts by.
struct CandidateList {
  Candidate* items;
  uint64_t* keys;
  uint32_t* indices;  // 0..n-1, the values sorted along with the keys
  int* count;         // may exceed capacity: the overflow
  int capacity;
};
constexpr int kCandidateKeyBits = 40;

void detect_extrema(const OctaveTable& octaves, const RefineSettings& refine, float threshold,
                    const CandidateList& out, cudaStream_t stream);

// For sorted candidates 0..n-1 (skipping repeats of a key), the orientation peaks: counts[i]
// angles in angles[i * kMaxOrientationPeaks ...]. counts[n] is set to 0 for the scan.
void assign_orientations(const OctaveTable& octaves, const Candidate* candidates,
                         const uint64_t* sorted_keys, const uint32_t* sorted_indices, int n,
                         int first_octave, int* counts, float* angles, cudaStream_t stream);

// Writes one keypoint per (candidate, peak) at offsets[i] + peak, up to capacity.
void emit_keypoints(const Candidate* candidates, const uint32_t* sorted_indices, int n,
                    const int* counts, const float* angles, const int* offsets, Keypoint* keypoints,
                    int capacity, cudaStream_t stream);

// Descriptor rows for keypoints[0..count) in the requested format (not kNone).
void describe_keypoints(const OctaveTable& octaves, const Keypoint* keypoints, int count,
                        int first_octave, DescriptorFormat format, void* descriptors,
                        cudaStream_t stream);

}  // namespace gpusift::cuda
