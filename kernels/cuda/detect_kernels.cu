// SPDX-License-Identifier: LGPL-2.1-or-later
#include "bits_for.h"
#include "cuda_check.h"
#include "feature_kernels.h"
#include "gpusift/error.h"

namespace gpusift::cuda {

namespace {

constexpr int kTileWidth = 32;
constexpr int kThreadRows = 8;
constexpr int kDetectThreads = kTileWidth * kThreadRows;
constexpr int kDetectBlocksPerMultiprocessor = 5;
// Rows a thread tests. A launch that the GPU holds in about one wave lasts as long as its slowest
// thread, which refines its rows' extrema one after another, so such a launch gives each thread
// one row (H100, ncu: the small octaves' launch at 720p 11.8 -> 8.2 us). Larger launches keep
// four, which share their loads; one row made them slower (1080p octave 1 19.6 -> 20.1 us).
constexpr int kRowsPerThread = 4;
constexpr int kShortLaunchRowsPerThread = 1;

// Blocks of one launch enumerate octave (of the launch's range), then tile of the octave's
// interior, then layer.
struct DetectGrid {
  OctaveRange octaves;
  int first_block[kMaxOctaves + 1];
  int tiles_x[kMaxOctaves];
};

__device__ uint64_t location_key(const CandidateKeyLayout& key, int octave, int layer, int row,
                                 int col) {
  return (static_cast<uint64_t>(octave) << key.octave_shift) |
         (static_cast<uint64_t>(layer) << key.layer_shift) |
         (static_cast<uint64_t>(row) << key.row_shift) | static_cast<uint64_t>(col);
}

__device__ void append_if_refined(const LayerStackView& dog, int octave, int layer, int row,
                                  int col, const RefineSettings& refine, const CandidateList& out) {
  RefinedExtremum extremum;
  if (!refine_extremum(dog, octave, layer, row, col, refine, &extremum))
    return;
  const int slot = atomicAdd(out.count, 1);
  if (slot >= out.capacity)
    return;
  out.items[slot] =
      Candidate{extremum.keypoint, octave, extremum.layer, extremum.row, extremum.col};
  out.keys[slot] = location_key(out.key, octave, extremum.layer, extremum.row, extremum.col);
  out.indices[slot] = slot;
}

struct TilePlace {
  int octave, layer;
  int first_col, first_row;
};

// A tile's layers go to neighbouring blocks, which run together and so share the tile's DoG
// reads in the caches: with the layers of an octave in turn, each layer came from DRAM up to
// three times.
template <int kTileHeight>
__device__ TilePlace place_of_block(const DetectGrid& grid, int octave_layers) {
  TilePlace place{};
  place.octave = grid.octaves.first;
  while (place.octave + 1 < grid.octaves.end &&
         static_cast<int>(blockIdx.x) >= grid.first_block[place.octave + 1])
    ++place.octave;
  const int local = blockIdx.x - grid.first_block[place.octave];
  place.layer = 1 + local % octave_layers;
  const int tile = local / octave_layers;
  place.first_col = kSiftImageBorder + (tile % grid.tiles_x[place.octave]) * kTileWidth;
  place.first_row = kSiftImageBorder + (tile / grid.tiles_x[place.octave]) * kTileHeight;
  return place;
}

// A thread tests kRows neighbouring positions of a column. It reads the rows of three
// that their own layer's patches share once, all together, and decides each position's own layer
// from them; the layers below and above are read only for the few that pass.
// Five blocks a multiprocessor (48 registers, a few spilt on the rare refinement path): at the
// 64 registers it takes unbounded only four fit, and the kernel waits on memory more than it
// computes (H100: 92 instead of 102 us at 2560x1920).
template <int kRows>
__global__ void __launch_bounds__(kDetectThreads, kDetectBlocksPerMultiprocessor)
    detect_kernel(OctaveTable octaves, DetectGrid grid, RefineSettings refine, float threshold,
                  CandidateList out) {
  __shared__ TilePlace place;
  if (threadIdx.x == 0 && threadIdx.y == 0)
    place = place_of_block<kThreadRows * kRows>(grid, refine.n_octave_layers);
  __syncthreads();
  const int octave = place.octave, layer = place.layer;
  const LayerStackView& dog = octaves.dog[octave];
  const int col = place.first_col + threadIdx.x;
  const int first_row = place.first_row + threadIdx.y * kRows;
  if (col >= dog.width - kSiftImageBorder || first_row >= dog.height - kSiftImageBorder)
    return;
  const auto layer_stride = static_cast<ptrdiff_t>(dog.layer_stride);
  const auto stride = static_cast<ptrdiff_t>(dog.stride);
  const float* plane = dog.data + layer * layer_stride + col;
  PatchBounds rows[kRows + 2];
  float values[kRows];
#pragma unroll
  for (int j = 0; j < kRows + 2; ++j) {
    // Past the last tested row the loads only need to stay inside the layer.
    const float* at = plane + min(first_row - 1 + j, dog.height - 1) * stride;
    rows[j] = bounds_of_three(at[-1], at[0], at[1]);
    if (j >= 1 && j <= kRows)
      values[j - 1] = at[0];
  }
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    const int row = first_row + i;
    if (row >= dog.height - kSiftImageBorder)
      return;
    const float value = values[i];
    if (!passes_prethreshold(value, threshold) ||
        !beats_patch(value, merge_bounds(rows[i], rows[i + 1], rows[i + 2])))
      continue;
    const float* centre = plane + row * stride;
    if (beats_patch(value, patch_bounds(centre - layer_stride, stride)) &&
        beats_patch(value, patch_bounds(centre + layer_stride, stride)))
      append_if_refined(dog, octave, layer, row, col, refine, out);
  }
}

// The launch's grid with tiles `tile_height` rows high; returns its block count.
int plan_detect_grid(const OctaveTable& octaves, OctaveRange range, int octave_layers,
                     int tile_height, DetectGrid* grid) {
  *grid = DetectGrid{};
  grid->octaves = range;
  int blocks = 0;
  for (int o = range.first; o < range.end; ++o) {
    grid->first_block[o] = blocks;
    const int inner_w = octaves.dog[o].width - 2 * kSiftImageBorder;
    const int inner_h = octaves.dog[o].height - 2 * kSiftImageBorder;
    grid->tiles_x[o] = inner_w > 0 ? (inner_w + kTileWidth - 1) / kTileWidth : 0;
    const int tiles_y = inner_h > 0 ? (inner_h + tile_height - 1) / tile_height : 0;
    blocks += grid->tiles_x[o] * tiles_y * octave_layers;
  }
  grid->first_block[range.end] = blocks;
  return blocks;
}

// Up to one and a half waves of four-row blocks.
bool is_short_launch(int four_row_blocks) {
  int device = 0, multiprocessors = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device),
        "cudaDeviceGetAttribute");
  return 2 * four_row_blocks <= 3 * multiprocessors * kDetectBlocksPerMultiprocessor;
}

}  // namespace

CandidateKeyLayout candidate_key_layout(int largest_width, int largest_height, int octave_layers,
                                        int octaves) {
  // Each field's largest value lies below its all-ones, so no key equals the padding.
  CandidateKeyLayout key{};
  key.row_shift = bits_for(largest_width);
  key.layer_shift = key.row_shift + bits_for(largest_height);
  key.octave_shift = key.layer_shift + bits_for(octave_layers + 1);
  key.bits = key.octave_shift + bits_for(octaves);
  return key;
}

int detect_extrema(const OctaveTable& octaves, OctaveRange range, const RefineSettings& refine,
                   float threshold, const CandidateList& out, cudaStream_t stream,
                   DetectRows rows) {
  if (range.first < 0 || range.end > octaves.count || range.first > range.end)
    throw Error(ErrorCode::kInvalidArgument, "detect_extrema: octave range outside the table");
  DetectGrid grid;
  int blocks =
      plan_detect_grid(octaves, range, refine.n_octave_layers, kThreadRows * kRowsPerThread, &grid);
  if (blocks == 0)
    return 0;
  const bool one_row =
      rows == DetectRows::kOne || (rows == DetectRows::kForLaunchSize && is_short_launch(blocks));
  const dim3 threads(kTileWidth, kThreadRows);
  if (one_row) {
    blocks = plan_detect_grid(octaves, range, refine.n_octave_layers,
                              kThreadRows * kShortLaunchRowsPerThread, &grid);
    detect_kernel<kShortLaunchRowsPerThread>
        <<<blocks, threads, 0, stream>>>(octaves, grid, refine, threshold, out);
  } else {
    detect_kernel<kRowsPerThread>
        <<<blocks, threads, 0, stream>>>(octaves, grid, refine, threshold, out);
  }
  check_launch("detect_kernel");
  return one_row ? kShortLaunchRowsPerThread : kRowsPerThread;
}

}  // namespace gpusift::cuda
