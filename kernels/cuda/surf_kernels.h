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
// (frame_width >> o) x (frame_height >> o), one after another.
struct SurfLayerTable {
  int octaves;
  int layers;
  float* data[kSurfMaxOctaves];
  int width[kSurfMaxOctaves];
  int height[kSurfMaxOctaves];
  int stride[kSurfMaxOctaves];  // in floats
  size_t plane[kSurfMaxOctaves];

  GPUSIFT_HD float* row(int octave, int layer, int r) const {
    return data[octave] + layer * plane[octave] + static_cast<ptrdiff_t>(r) * stride[octave];
  }
  GPUSIFT_HD FloatImageView view(int octave, int layer) const {
    return FloatImageView{data[octave] + layer * plane[octave], width[octave], height[octave],
                          stride[octave]};
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

// Host-computed weights, passed by value: the CPU backend computes them with the host's expf,
// whose last bits the device's expf does not always reproduce.
struct SurfOrientationWeights {
  float values[kSurfOrientationCandidates];
};
struct SurfDescriptorWeights {
  float values[kSurfSamplesPerSide * kSurfSamplesPerSide];
};
SurfOrientationWeights surf_orientation_weights();
SurfDescriptorWeights surf_descriptor_weights();

// The integral image of surf_integral.h from a frame in device memory (gray or RGB family,
// converted to gray as OpenCV does): `table` has height + 1 rows of `stride` elements.
void integral_image(const void* frame, size_t pitch_bytes, PixelFormat format, int width,
                    int height, uint32_t* table, int stride, cudaStream_t stream);

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
// the sample grids, filters and search ranges of every layer, and the block layout of the two
// launches that compute the determinants and search them.
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
  // The search launch: the middle layers of an octave at once.
  int search_count, search_blocks;
  SurfOctaveTiles searched[kSurfMaxOctaves];
};

SurfPlan plan_surf_layers(int width, int height, int octaves, int layers);

// Every layer of every octave, on the samples whose filter lies inside the frame (the only ones
// the search reads).
void hessian_layers(const IntegralImageView& sum, const SurfLayerTable& layers,
                    const SurfPlan& plan, cudaStream_t stream);

// Maxima of the middle layers above `threshold`, interpolated, as keypoints without angle;
// those whose orientation wavelet would not fit the frame are left out, as the CPU does.
void detect_surf_maxima(const IntegralImageView& sum, const SurfLayerTable& layers,
                        const SurfPlan& plan, float threshold, const SurfCandidateList& out,
                        cudaStream_t stream);

// Orients candidates[0..n) (270 when upright) into keypoints[i], with keys[i] the sort key of
// the canonical order's position (x, y), or kSurfDroppedKey for a candidate the CPU drops (no
// orientation sample inside the frame); indices[i] = i.
constexpr uint64_t kSurfDroppedKey = ~0ull;
void orient_surf_candidates(const IntegralImageView& sum, const SurfCandidate* candidates, int n,
                            bool upright, const SurfOrientationWeights& weights,
                            Keypoint* keypoints, uint64_t* keys, uint32_t* indices,
                            cudaStream_t stream);

// From keypoints sorted by key: `placed` in the canonical order of keypoint.h, with keep[i] = 0
// for dropped candidates and for duplicates of an earlier keypoint (equal x, y, size, angle).
void place_canonically(const Keypoint* keypoints, const SurfCandidate* candidates,
                       const uint64_t* sorted_keys, const uint32_t* sorted_indices, int n,
                       Keypoint* placed, uint8_t* keep, cudaStream_t stream);

// out[0..*count) = the kept rows of in[0..n), in order. `scratch` as list_scratch_bytes().
void select_kept(void* scratch, size_t scratch_bytes, const Keypoint* in, const uint8_t* keep,
                 int n, Keypoint* out, int* count, cudaStream_t stream);

// Descriptor rows (64, or 128 when extended) of keypoints[0..count), or of the first
// *count_on_device of them when that pointer is given.
void describe_surf(const IntegralImageView& sum, const Keypoint* keypoints, int count,
                   const int* count_on_device, bool extended, const SurfDescriptorWeights& weights,
                   float* descriptors, cudaStream_t stream);

}  // namespace gpusift::cuda
