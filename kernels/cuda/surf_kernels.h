// SPDX-License-Identifier: LGPL-2.1-or-later
// Launchers of the CUDA SURF backend. The kernels run the math of common/'s surf_*.h, compiled
// without FMA contraction (meson.build), so that each float operation rounds as the CPU's does.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpusift/frame.h"
#include "gpusift/image_view.h"
#include "gpusift/keypoint.h"
#include "gpusift/surf_descriptor.h"
#include "gpusift/surf_extrema.h"
#include "gpusift/surf_hessian.h"
#include "gpusift/surf_integral.h"
#include "gpusift/surf_orientation.h"
#include "gpusift/surf_params.h"

namespace gpusift::cuda {

constexpr int kSurfMaxLayers = kSurfMaxOctaveLayers + 2;

// The determinant layers of every octave: octave o holds `layers` planes of its sample grid,
// (frame_width >> o) x (frame_height >> o), one after another. Beside them, a bit per sample of
// each middle layer (1 .. layers - 2) marks the samples above the threshold, the only ones the
// search has to look at: bit c % 32 of word c / 32 of a row.
struct SurfLayerTable {
  int octaves;
  int layers;
  float* data[kSurfMaxOctaves];
  int width[kSurfMaxOctaves];
  int height[kSurfMaxOctaves];
  int stride[kSurfMaxOctaves];  // in floats
  size_t plane[kSurfMaxOctaves];
  uint32_t* masks;                          // every octave's mask planes, one after another
  size_t mask_offset[kSurfMaxOctaves + 1];  // of octave o's first word; [octaves]: all words
  int mask_words[kSurfMaxOctaves];          // per row
  size_t mask_plane[kSurfMaxOctaves];       // words per middle layer

  GPUSIFT_HD float* row(int octave, int layer, int r) const {
    return data[octave] + layer * plane[octave] + static_cast<ptrdiff_t>(r) * stride[octave];
  }
  GPUSIFT_HD FloatImageView view(int octave, int layer) const {
    return FloatImageView{data[octave] + layer * plane[octave], width[octave], height[octave],
                          stride[octave]};
  }
  GPUSIFT_HD uint32_t* mask_row(int octave, int layer, int r) const {
    return masks + mask_offset[octave] + (layer - 1) * mask_plane[octave] +
           static_cast<size_t>(r) * mask_words[octave];
  }
};

// A detected maximum before its orientation. `location` (octave, layer, row, column) is unique
// to it and breaks the ties of the canonical order between otherwise equal keypoints.
struct SurfCandidate {
  Keypoint keypoint;  // angle unset
  uint64_t location;
};

// Candidates go to slots taken with an atomic counter, in no fixed order.
struct SurfCandidateList {
  SurfCandidate* items;
  int* count;  // may exceed capacity: the caller grows the list and detects again
  int capacity;
};

// Host-computed weights, copied to device memory once per extractor: the CPU backend computes
// them with the host's expf, whose last bits the device's expf does not always reproduce. (As
// kernel parameters, each lane's read of a different weight would queue at the constant cache.)
struct SurfOrientationWeights {
  float values[kSurfOrientationCandidates];
};
struct SurfDescriptorWeights {
  float values[kSurfSamplesPerSide * kSurfSamplesPerSide];
};
SurfOrientationWeights surf_orientation_weights();
SurfDescriptorWeights surf_descriptor_weights();

// The integral image of surf_integral.h from a frame in device memory (gray or RGB family,
// converted to gray as OpenCV does, limited range brought to full range): `table` has height + 1
// rows of `stride` elements.
void integral_image(const void* frame, size_t pitch_bytes, PixelFormat format, LumaRange range,
                    int width, int height, uint32_t* table, int stride, cudaStream_t stream);

// A rectangle of samples of one octave, cut into blocks of kSurfTileWidth x kSurfTileHeight.
constexpr int kSurfTileWidth = 32;
constexpr int kSurfTileHeight = 8;
// Only the first octaves' tiles can fit in shared memory: octave 2's would need over 160 KB.
constexpr int kSurfTiledOctaves = 2;
struct SurfOctaveTiles {
  int octave;
  int first_block;  // of this octave in the launch
  int tiles_x;
  int row_begin, row_end, col_begin, col_end;
};

// Everything about the layers that depends on the frame size alone, worked out once on the host:
// the sample grids, filters and search ranges of every layer, and the block layout of the launch
// that computes the determinants.
struct SurfPlan {
  int octaves, layers;
  SurfLayerGrid grid[kSurfMaxOctaves][kSurfMaxLayers];
  HessianFilter filter[kSurfMaxOctaves][kSurfMaxLayers];
  SurfSearchRange search[kSurfMaxOctaves][kSurfMaxLayers];
  // The determinant launch: every layer of an octave at once, one thread per sample. Where
  // tile_rows > 0 a block first copies the tile_rows x tile_cols entries of the integral image
  // that its filters read, from (block's first row and column) * step - reach, to shared memory.
  int hessian_count, hessian_blocks;
  SurfOctaveTiles hessian[kSurfMaxOctaves];
  int tile_rows[kSurfTiledOctaves], tile_cols[kSurfTiledOctaves], reach[kSurfTiledOctaves];
  // Entry k of layer l's filter at the block's sample (r, c) lies tile_entries[o][l][k] bytes
  // past the sample's own tile entry, step * (r * tile_cols + c).
  int tile_entries[kSurfTiledOctaves][kSurfMaxLayers][kHessianEntries];
  size_t tile_bytes;  // the largest tile, the launch's dynamic shared memory
};

SurfPlan plan_surf_layers(int width, int height, int octaves, int layers);

// Every layer of every octave, on the samples whose filter lies inside the frame (the only ones
// the search reads), and the masks of the middle layers' samples above `threshold`; the masks
// must be zero before.
void hessian_layers(const IntegralImageView& sum, const SurfLayerTable& layers,
                    const SurfPlan& plan, float threshold, cudaStream_t stream);

// Maxima of the middle layers above `threshold` (the masked samples), interpolated, as keypoints
// without angle; those whose orientation wavelet would not fit the frame are left out, as the
// CPU does.
void detect_surf_maxima(const IntegralImageView& sum, const SurfLayerTable& layers,
                        const SurfPlan& plan, float threshold, const SurfCandidateList& out,
                        cudaStream_t stream);

// Launches over lists whose length only the device knows loop over them with at most this many
// blocks: the capacity that bounds the length can be far larger.
constexpr int kSurfMaxGridBlocks = 4096;

// Where the canonical order keeps its work: keypoints are binned by pixel column (floor(x),
// clamped to the frame), which orders them by x up to the keypoints sharing a column. Lists hold
// one entry per candidate, bin lists bins + 1.
struct SurfOrderWork {
  int bins;
  int* bin_counts;      // zero before orient_surf_candidates, and left at zero by the order
  int* bin_starts;      // first slot of each bin; bin_starts[bins] = binned candidates
  int* kept_starts;     // first output row of each bin
  int* candidate_bins;  // per candidate: its bin, or -1 when the CPU drops it
  uint32_t* binned;     // candidates by slot, grouped by bin
  uint32_t* ranked;     // candidates by slot, in the canonical order
  uint8_t* keep;        // per ranked slot: 0 for a duplicate of an earlier keypoint
};

// Orients the first min(*candidate_count, capacity) candidates (270 when upright) into
// keypoints[i] and bins them; a candidate without an orientation sample inside the frame gets
// bin -1, as the CPU drops it.
void orient_surf_candidates(const IntegralImageView& sum, const SurfCandidate* candidates,
                            const int* candidate_count, int capacity, bool upright,
                            const SurfOrientationWeights* weights, Keypoint* keypoints,
                            const SurfOrderWork& work, cudaStream_t stream);

// The oriented keypoints of the binned candidates into out[0..*out_count) and host_out (the device
// address of pinned host memory, written across PCIe), in the canonical order of keypoint.h
// without duplicates (equal x, y, size, angle): the CPU's sort_and_deduplicate.
void order_surf_keypoints(const Keypoint* keypoints, const SurfCandidate* candidates,
                          const int* candidate_count, int capacity, const SurfOrderWork& work,
                          Keypoint* out, Keypoint* host_out, int* out_count, cudaStream_t stream);

// Descriptor rows (64, or 128 when extended) of keypoints[0..min(*count, capacity)), into
// `descriptors` and `host_descriptors` (the device address of pinned host memory, written across
// PCIe) alike.
void describe_surf(const IntegralImageView& sum, const Keypoint* keypoints, const int* count,
                   int capacity, bool extended, const SurfDescriptorWeights* weights,
                   float* descriptors, float* host_descriptors, cudaStream_t stream);

}  // namespace gpusift::cuda
