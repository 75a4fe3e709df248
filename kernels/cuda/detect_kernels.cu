#include "bits_for.h"
#include "cuda_check.h"
#include "feature_kernels.h"

namespace gpusift::cuda {

namespace {

constexpr int kTileWidth = 32;
constexpr int kThreadRows = 8;
constexpr int kRowsPerThread = 4;
constexpr int kTileHeight = kThreadRows * kRowsPerThread;

// Blocks of one launch enumerate octave, then tile of the octave's interior, then layer.
struct DetectGrid {
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
__device__ TilePlace place_of_block(const OctaveTable& octaves, const DetectGrid& grid,
                                    int octave_layers) {
  TilePlace place{};
  while (place.octave + 1 < octaves.count &&
         static_cast<int>(blockIdx.x) >= grid.first_block[place.octave + 1])
    ++place.octave;
  const int local = blockIdx.x - grid.first_block[place.octave];
  place.layer = 1 + local % octave_layers;
  const int tile = local / octave_layers;
  place.first_col = kSiftImageBorder + (tile % grid.tiles_x[place.octave]) * kTileWidth;
  place.first_row = kSiftImageBorder + (tile / grid.tiles_x[place.octave]) * kTileHeight;
  return place;
}

// A thread tests kRowsPerThread positions of a column, as most end at the threshold: their
// share of the block's set-up (integer divisions, made once by one thread) would dominate.
__global__ void detect_kernel(OctaveTable octaves, DetectGrid grid, RefineSettings refine,
                              float threshold, CandidateList out) {
  __shared__ TilePlace place;
  if (threadIdx.x == 0 && threadIdx.y == 0)
    place = place_of_block(octaves, grid, refine.n_octave_layers);
  __syncthreads();
  const int octave = place.octave, layer = place.layer;
  const LayerStackView& dog = octaves.dog[octave];
  const int col = place.first_col + threadIdx.x;
  if (col >= dog.width - kSiftImageBorder)
    return;
  for (int i = 0; i < kRowsPerThread; ++i) {
    const int row = place.first_row + threadIdx.y + i * kThreadRows;
    if (row >= dog.height - kSiftImageBorder)
      return;
    if (is_scale_space_extremum(dog, layer, row, col, threshold))
      append_if_refined(dog, octave, layer, row, col, refine, out);
  }
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

void detect_extrema(const OctaveTable& octaves, const RefineSettings& refine, float threshold,
                    const CandidateList& out, cudaStream_t stream) {
  DetectGrid grid{};
  int blocks = 0;
  for (int o = 0; o < octaves.count; ++o) {
    grid.first_block[o] = blocks;
    const int inner_w = octaves.dog[o].width - 2 * kSiftImageBorder;
    const int inner_h = octaves.dog[o].height - 2 * kSiftImageBorder;
    grid.tiles_x[o] = inner_w > 0 ? (inner_w + kTileWidth - 1) / kTileWidth : 0;
    const int tiles_y = inner_h > 0 ? (inner_h + kTileHeight - 1) / kTileHeight : 0;
    blocks += grid.tiles_x[o] * tiles_y * refine.n_octave_layers;
  }
  grid.first_block[octaves.count] = blocks;
  if (blocks == 0)
    return;
  detect_kernel<<<blocks, dim3(kTileWidth, kThreadRows), 0, stream>>>(octaves, grid, refine,
                                                                      threshold, out);
  check_launch("detect_kernel");
}

}  // namespace gpusift::cuda
