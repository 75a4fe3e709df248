// Determinant layers and their 3x3x3 maxima. Each launch covers every octave and layer at once:
// its blocks enumerate (octave, layer) entries, then tiles of the entry's rectangle.
#include "cuda_check.h"
#include "gpusift/surf_extrema.h"
#include "gpusift/surf_hessian.h"
#include "surf_kernels.h"

namespace gpusift::cuda {

namespace {

constexpr int kTileWidth = 32;
constexpr int kTileHeight = 8;
constexpr int kMaxEntries = kSurfMaxOctaves * kSurfMaxLayers;

struct Rectangle {
  int row_begin, row_end, col_begin, col_end;
};

struct LayerTiles {
  int count;
  int first_block[kMaxEntries + 1];
  int octave[kMaxEntries];
  int layer[kMaxEntries];
  int row_begin[kMaxEntries];
  int col_begin[kMaxEntries];
  int tiles_x[kMaxEntries];

  // Adds the rectangle when it is not empty; returns the blocks so far.
  int add(int o, int l, const Rectangle& r) {
    const int width = r.col_end - r.col_begin, height = r.row_end - r.row_begin;
    if (width <= 0 || height <= 0)
      return first_block[count];
    octave[count] = o;
    layer[count] = l;
    row_begin[count] = r.row_begin;
    col_begin[count] = r.col_begin;
    tiles_x[count] = (width + kTileWidth - 1) / kTileWidth;
    const int tiles_y = (height + kTileHeight - 1) / kTileHeight;
    first_block[count + 1] = first_block[count] + tiles_x[count] * tiles_y;
    ++count;
    return first_block[count];
  }
};

struct TilePosition {
  int octave, layer, row, col;
};

__device__ TilePosition tile_position(const LayerTiles& tiles) {
  int e = 0;
  while (e + 1 < tiles.count && static_cast<int>(blockIdx.x) >= tiles.first_block[e + 1])
    ++e;
  const int local = blockIdx.x - tiles.first_block[e];
  TilePosition p;
  p.octave = tiles.octave[e];
  p.layer = tiles.layer[e];
  p.row = tiles.row_begin[e] + (local / tiles.tiles_x[e]) * kTileHeight + threadIdx.y;
  p.col = tiles.col_begin[e] + (local % tiles.tiles_x[e]) * kTileWidth + threadIdx.x;
  return p;
}

__device__ uint64_t location_key(int octave, int layer, int row, int col) {
  return (static_cast<uint64_t>(octave) << 40) | (static_cast<uint64_t>(layer) << 32) |
         (static_cast<uint64_t>(row) << 16) | static_cast<uint64_t>(col);
}

__global__ void hessian_kernel(IntegralImageView sum, SurfLayerTable layers, LayerTiles tiles) {
  __shared__ HessianFilter filter;
  const TilePosition p = tile_position(tiles);
  const SurfLayerGrid grid = surf_layer_grid(p.octave, p.layer, sum.width, sum.height);
  if (threadIdx.x == 0 && threadIdx.y == 0)
    filter = hessian_filter(grid.size);
  __syncthreads();
  if (p.row >= grid.row_end || p.col >= grid.col_end)
    return;
  layers.row(p.octave, p.layer, p.row)[p.col] =
      hessian_response(sum, filter, grid.top(p.row), grid.left(p.col)).det;
}

__global__ void detect_kernel(IntegralImageView sum, SurfLayerTable layers, LayerTiles tiles,
                              float threshold, SurfCandidateList out) {
  const TilePosition p = tile_position(tiles);
  const SurfLayerGrid grid = surf_layer_grid(p.octave, p.layer, sum.width, sum.height);
  const SurfSearchRange range =
      surf_search_range(surf_layer_grid(p.octave, p.layer - 1, sum.width, sum.height), grid,
                        surf_layer_grid(p.octave, p.layer + 1, sum.width, sum.height));
  if (p.row >= range.row_end || p.col >= range.col_end)
    return;
  const DeterminantStack stack{layers.view(p.octave, p.layer - 1), layers.view(p.octave, p.layer),
                               layers.view(p.octave, p.layer + 1)};
  if (!is_determinant_maximum(stack, p.row, p.col, threshold))
    return;
  SurfOffset offset;
  if (!interpolate_maximum(stack, p.row, p.col, &offset))
    return;
  const float trace =
      hessian_response(sum, hessian_filter(grid.size), grid.top(p.row), grid.left(p.col)).trace;
  const Keypoint k =
      surf_keypoint(grid, p.octave, p.row, p.col, offset, stack.here.at(p.row, p.col), trace);
  SurfOrientationWindow window;
  if (!surf_orientation_window(k, sum.width, sum.height, &window))
    return;
  const int slot = atomicAdd(out.count, 1);
  if (slot < out.capacity)
    out.items[slot] = SurfCandidate{k, location_key(p.octave, p.layer, p.row, p.col)};
}

}  // namespace

void hessian_layers(const IntegralImageView& sum, const SurfLayerTable& layers,
                    cudaStream_t stream) {
  LayerTiles tiles{};
  int blocks = 0;
  for (int o = 0; o < layers.octaves; ++o) {
    for (int l = 0; l < layers.layers; ++l) {
      const SurfLayerGrid g = surf_layer_grid(o, l, sum.width, sum.height);
      blocks = tiles.add(o, l, Rectangle{g.row_begin, g.row_end, g.col_begin, g.col_end});
    }
  }
  if (blocks == 0)
    return;
  hessian_kernel<<<blocks, dim3(kTileWidth, kTileHeight), 0, stream>>>(sum, layers, tiles);
  check_launch("hessian_kernel");
}

void detect_surf_maxima(const IntegralImageView& sum, const SurfLayerTable& layers, float threshold,
                        const SurfCandidateList& out, cudaStream_t stream) {
  LayerTiles tiles{};
  int blocks = 0;
  for (int o = 0; o < layers.octaves; ++o) {
    for (int l = 1; l + 1 < layers.layers; ++l) {
      const SurfSearchRange r = surf_search_range(surf_layer_grid(o, l - 1, sum.width, sum.height),
                                                  surf_layer_grid(o, l, sum.width, sum.height),
                                                  surf_layer_grid(o, l + 1, sum.width, sum.height));
      blocks = tiles.add(o, l, Rectangle{r.row_begin, r.row_end, r.col_begin, r.col_end});
    }
  }
  if (blocks == 0)
    return;
  detect_kernel<<<blocks, dim3(kTileWidth, kTileHeight), 0, stream>>>(sum, layers, tiles, threshold,
                                                                      out);
  check_launch("detect_kernel");
}

}  // namespace gpusift::cuda
