// SPDX-License-Identifier: LGPL-2.1-or-later
// Determinant layers and their 3x3x3 maxima. One thread takes one sample position of an octave
// through every layer (all layers of an octave share its sample grid), so the layer geometry,
// worked out once per frame size in SurfPlan, is read from the kernel's parameters. Where the
// integral image entries that a block's filters read fit in shared memory, the block copies
// them there first: each entry is then read once from global memory instead of about 16 times.
// The determinant pass also marks the middle layers' samples above the threshold in bit masks,
// and the search visits only those. Integral images are indexed with 32 bits (surf_integral.h),
// which the frame limit allows.
#include <algorithm>

#include "cuda_check.h"
#include "surf_kernels.h"

namespace gpusift::cuda {

namespace {

static_assert(static_cast<long long>(kMaxFrameSide + 1) * (kMaxFrameSide + 64) < (1LL << 31),
              "integral image indices must fit in 32 bits");

// Shared memory a block may use for its tile: 5 blocks of 256 threads still fit on an SM.
constexpr size_t kTileBudgetBytes = 44 * 1024;

__device__ const SurfOctaveTiles& block_octave(const SurfOctaveTiles* entries, int count) {
  int e = 0;
  while (e + 1 < count && static_cast<int>(blockIdx.x) >= entries[e + 1].first_block)
    ++e;
  return entries[e];
}

struct BlockOrigin {
  int row, col;  // first sample of the block
};

__device__ BlockOrigin block_origin(const SurfOctaveTiles& t) {
  const int local = blockIdx.x - t.first_block;
  return BlockOrigin{t.row_begin + (local / t.tiles_x) * kSurfTileHeight,
                     t.col_begin + (local % t.tiles_x) * kSurfTileWidth};
}

__device__ uint64_t location_key(int octave, int layer, int row, int col) {
  return (static_cast<uint64_t>(octave) << 40) | (static_cast<uint64_t>(layer) << 32) |
         (static_cast<uint64_t>(row) << 16) | static_cast<uint64_t>(col);
}

__device__ bool inside(const SurfLayerGrid& g, int row, int col) {
  return row >= g.row_begin && row < g.row_end && col >= g.col_begin && col < g.col_end;
}

// Stores the determinant of sample (row, col) of layer l, and marks it in a middle layer's mask
// when above the threshold: few samples are, and the search visits only those.
__device__ void store_determinant(const SurfLayerTable& layers, int o, int l, int row, int col,
                                  float det, float threshold) {
  layers.row(o, l, row)[col] = det;
  if (det > threshold && l >= 1 && l + 1 < layers.layers)
    atomicOr(layers.mask_row(o, l, row) + col / 32, 1u << (col % 32));
}

// Determinants of every layer at sample (row, col) of octave o from the integral image.
__device__ void store_determinants(const IntegralImageView& sum, const SurfLayerTable& layers,
                                   const SurfPlan& plan, float threshold, int o, int row, int col) {
  for (int l = 0; l < plan.layers; ++l) {
    const SurfLayerGrid& g = plan.grid[o][l];
    if (inside(g, row, col))
      store_determinant(layers, o, l, row, col,
                        hessian_response(sum, plan.filter[o][l], g.top(row), g.left(col)).det,
                        threshold);
  }
}

// The same from the block's tile, for a known octave: the layer loop unrolls and every entry
// offset becomes a constant of the kernel's parameters, so a read costs an add and a load.
template <int kOctave>
__device__ void store_tiled_determinants(const uint32_t* tile, int lead,
                                         const SurfLayerTable& layers, const SurfPlan& plan,
                                         float threshold, int row, int col) {
  const char* sample =
      reinterpret_cast<const char*>(tile) +
      sizeof(uint32_t) *
          (lead + (threadIdx.y * plan.tile_cols[kOctave] + threadIdx.x) * (1 << kOctave));
#pragma unroll
  for (int l = 0; l < kSurfMaxLayers; ++l) {
    if (l >= plan.layers)
      return;
    if (!inside(plan.grid[kOctave][l], row, col))
      continue;
    uint32_t entries[kHessianEntries];
#pragma unroll
    for (int k = 0; k < kHessianEntries; ++k)
      entries[k] = *reinterpret_cast<const uint32_t*>(sample + plan.tile_entries[kOctave][l][k]);
    store_determinant(layers, kOctave, l, row, col,
                      hessian_from_entries(entries, plan.filter[kOctave][l]).det, threshold);
  }
}

__global__ void hessian_kernel(IntegralImageView sum, SurfLayerTable layers, SurfPlan plan,
                               float threshold) {
  extern __shared__ __align__(16) uint32_t tile[];
  const SurfOctaveTiles& t = block_octave(plan.hessian, plan.hessian_count);
  const int o = t.octave;
  const BlockOrigin first = block_origin(t);
  const int row = first.row + threadIdx.y, col = first.col + threadIdx.x;
  const bool sampled = row < t.row_end && col < t.col_end;
  if (o >= kSurfTiledOctaves || plan.tile_rows[o] == 0) {
    if (sampled)
      store_determinants(sum, layers, plan, threshold, o, row, col);
    return;
  }
  const int step = 1 << o;
  const int origin_row = first.row * step - plan.reach[o];
  const int first_col = first.col * step - plan.reach[o];
  const int lead = first_col & 3;  // columns before the block's first entry, to align its rows
  const int origin_col = first_col - lead;
  const int rows = plan.tile_rows[o], cols = plan.tile_cols[o];
  for (int r = threadIdx.y; r < rows; r += blockDim.y) {
    const int table_row = min(max(origin_row + r, 0), sum.height);
    const uint32_t* source = sum.data + table_row * sum.stride;
    for (int c = 4 * threadIdx.x; c < cols; c += 4 * blockDim.x) {
      const int table_col = origin_col + c;
      uint4 group;
      if (table_col >= 0 && table_col + 4 <= sum.stride) {
        group = *reinterpret_cast<const uint4*>(source + table_col);
      } else {  // beyond the table: any value, no filter of a valid sample reads it
        group.x = source[min(max(table_col, 0), sum.width)];
        group.y = source[min(max(table_col + 1, 0), sum.width)];
        group.z = source[min(max(table_col + 2, 0), sum.width)];
        group.w = source[min(max(table_col + 3, 0), sum.width)];
      }
      *reinterpret_cast<uint4*>(tile + r * cols + c) = group;
    }
  }
  __syncthreads();
  if (!sampled)
    return;
  static_assert(kSurfTiledOctaves == 2, "one case per tiled octave");
  if (o == 0)
    store_tiled_determinants<0>(tile, lead, layers, plan, threshold, row, col);
  else
    store_tiled_determinants<1>(tile, lead, layers, plan, threshold, row, col);
}

// The CPU's search at sample (row, col) of middle layer l of octave o.
__device__ void search_sample(const IntegralImageView& sum, const SurfLayerTable& layers,
                              const SurfPlan& plan, float threshold, int o, int l, int row, int col,
                              const SurfCandidateList& out) {
  const SurfSearchRange& range = plan.search[o][l];
  if (row < range.row_begin || row >= range.row_end || col < range.col_begin ||
      col >= range.col_end)
    return;
  const DeterminantStack stack{layers.view(o, l - 1), layers.view(o, l), layers.view(o, l + 1)};
  if (!is_determinant_maximum(stack, row, col, threshold))
    return;
  SurfOffset offset;
  if (!interpolate_maximum(stack, row, col, &offset))
    return;
  const SurfLayerGrid& grid = plan.grid[o][l];
  const float trace = hessian_response(sum, plan.filter[o][l], grid.top(row), grid.left(col)).trace;
  const Keypoint k = surf_keypoint(grid, o, row, col, offset, stack.here.at(row, col), trace);
  SurfOrientationWindow window;
  if (!surf_orientation_window(k, sum.width, sum.height, &window))
    return;
  const int slot = atomicAdd(out.count, 1);
  if (slot < out.capacity)
    out.items[slot] = SurfCandidate{k, location_key(o, l, row, col)};
}

// Where a mask word lies: octave, middle layer, row and first column of its 32 samples.
struct MaskWord {
  int octave, layer, row, first_col;
};

__device__ MaskWord mask_word_at(const SurfLayerTable& layers, int index) {
  MaskWord w;
  w.octave = 0;
  while (index >= static_cast<int>(layers.mask_offset[w.octave + 1]))
    ++w.octave;
  const int local = index - static_cast<int>(layers.mask_offset[w.octave]);
  const int plane = static_cast<int>(layers.mask_plane[w.octave]);
  const int words = layers.mask_words[w.octave];
  w.layer = 1 + local / plane;
  w.row = local % plane / words;
  w.first_col = local % words * 32;
  return w;
}

// The position of the (n + 1)-th set bit of `bits`.
__device__ int nth_set_bit(uint32_t bits, int n) {
  for (; n > 0; --n)
    bits &= bits - 1;
  return __ffs(bits) - 1;
}

// A warp takes kWordsPerWarp consecutive mask words and shares out their marked samples, 32 at a
// time, so that every lane searches one: about one sample in ten is marked, mostly in clusters,
// and a lane per sample of the grid would idle. Few words per warp make many short warps, which
// hide the latency of the samples' reads better than few long ones. (Which lane finds which
// maximum does not matter: the canonical order comes later.)
constexpr int kWordsPerWarp = 8;
constexpr int kDetectThreads = 128;

__global__ void detect_kernel(IntegralImageView sum, SurfLayerTable layers, SurfPlan plan,
                              float threshold, SurfCandidateList out) {
  constexpr unsigned kFullWarp = 0xffffffffu;
  const int lane = threadIdx.x % 32;
  const int index = (blockIdx.x * blockDim.x + threadIdx.x) / 32 * kWordsPerWarp + lane;
  const bool valid =
      lane < kWordsPerWarp && index < static_cast<int>(layers.mask_offset[layers.octaves]);
  const uint32_t marked = valid ? layers.masks[index] : 0u;
  if (__all_sync(kFullWarp, marked == 0u))
    return;
  const MaskWord word = valid ? mask_word_at(layers, index) : MaskWord{0, 1, 0, 0};
  // Marked samples of the lanes before this one (an exclusive scan) and of the whole warp.
  const int count = __popc(marked);
  int through = count;
  for (int offset = 1; offset < 32; offset *= 2) {
    const int other = __shfl_up_sync(kFullWarp, through, offset);
    if (lane >= offset)
      through += other;
  }
  const int before = through - count;
  const int total = __shfl_sync(kFullWarp, through, 31);
  for (int first = 0; first < total; first += 32) {
    const int sample = first + lane;
    // The word holding it: the last lane whose marked samples start at or before it.
    int owner = 0;
    for (int step = 16; step > 0; step /= 2) {
      const int starts = __shfl_sync(kFullWarp, before, owner + step);
      if (starts <= sample)
        owner += step;
    }
    const uint32_t bits = __shfl_sync(kFullWarp, marked, owner);
    const int starts = __shfl_sync(kFullWarp, before, owner);
    const int o = __shfl_sync(kFullWarp, word.octave, owner);
    const int l = __shfl_sync(kFullWarp, word.layer, owner);
    const int row = __shfl_sync(kFullWarp, word.row, owner);
    const int first_col = __shfl_sync(kFullWarp, word.first_col, owner);
    if (sample < total)
      search_sample(sum, layers, plan, threshold, o, l, row,
                    first_col + nth_set_bit(bits, sample - starts), out);
  }
}

// The smallest rectangle of samples that covers the rectangles given to cover().
struct SampleBounds {
  int row_begin, row_end, col_begin, col_end;

  static SampleBounds empty(int width, int height) { return SampleBounds{height, 0, width, 0}; }
  template <typename Rectangle>
  void cover(const Rectangle& r) {
    if (r.row_begin >= r.row_end || r.col_begin >= r.col_end)
      return;
    row_begin = std::min(row_begin, r.row_begin);
    row_end = std::max(row_end, r.row_end);
    col_begin = std::min(col_begin, r.col_begin);
    col_end = std::max(col_end, r.col_end);
  }
};

// Appends the blocks that cover `bounds` of octave o.
void add_tiles(int o, const SampleBounds& bounds, SurfOctaveTiles* entries, int* count,
               int* blocks) {
  if (bounds.row_end <= bounds.row_begin || bounds.col_end <= bounds.col_begin)
    return;
  SurfOctaveTiles& t = entries[(*count)++];
  t = SurfOctaveTiles{o,
                      *blocks,
                      (bounds.col_end - bounds.col_begin + kSurfTileWidth - 1) / kSurfTileWidth,
                      bounds.row_begin,
                      bounds.row_end,
                      bounds.col_begin,
                      bounds.col_end};
  *blocks +=
      t.tiles_x * ((bounds.row_end - bounds.row_begin + kSurfTileHeight - 1) / kSurfTileHeight);
}

}  // namespace

namespace {

// Grids, filters and the determinant launch's blocks of octave o.
void plan_layers(int o, int width, int height, SurfPlan* plan) {
  SampleBounds bounds = SampleBounds::empty(width, height);
  for (int l = 0; l < plan->layers; ++l) {
    const SurfLayerGrid g = surf_layer_grid(o, l, width, height);
    plan->grid[o][l] = g;
    plan->filter[o][l] = hessian_filter(g.size);
    bounds.cover(g);
  }
  add_tiles(o, bounds, plan->hessian, &plan->hessian_count, &plan->hessian_blocks);
}

// The shared-memory tile of octave o, when it fits. A layer's filter at sample (i, j) reads rows
// step * (i - margin) + [0, size]; from the tile's origin, step * i - reach with reach the
// largest step * margin, that is step * i + (reach - step * margin) + [0, size].
void plan_tile(int o, SurfPlan* plan) {
  const int step = surf_sample_step(o);
  int reach = 0, extent = 0;
  for (int l = 0; l < plan->layers; ++l)
    reach = std::max(reach, step * plan->grid[o][l].margin);
  for (int l = 0; l < plan->layers; ++l)
    extent = std::max(extent, reach - step * plan->grid[o][l].margin + plan->grid[o][l].size + 1);
  const int rows = step * (kSurfTileHeight - 1) + extent;
  // Rows start at a multiple of 4 columns, up to 3 before the block's first entry, and hold whole
  // groups of 4, so that the block copies them as 16-byte vectors.
  const int cols = (step * (kSurfTileWidth - 1) + extent + 3 + 3) / 4 * 4;
  const size_t bytes = sizeof(uint32_t) * rows * cols;
  if (bytes > kTileBudgetBytes)
    return;
  plan->tile_rows[o] = rows;
  plan->tile_cols[o] = cols;
  plan->reach[o] = reach;
  plan->tile_bytes = std::max(plan->tile_bytes, bytes);
  for (int l = 0; l < plan->layers; ++l) {
    const int shift = reach - step * plan->grid[o][l].margin;
    for (int k = 0; k < kHessianEntries; ++k) {
      const TableOffset e = hessian_entry(plan->filter[o][l], k);
      plan->tile_entries[o][l][k] =
          static_cast<int>(sizeof(uint32_t)) * ((shift + e.row) * cols + shift + e.col);
    }
  }
}

// Search ranges of octave o's middle layers.
void plan_search(int o, SurfPlan* plan) {
  for (int l = 1; l + 1 < plan->layers; ++l)
    plan->search[o][l] =
        surf_search_range(plan->grid[o][l - 1], plan->grid[o][l], plan->grid[o][l + 1]);
}

}  // namespace

SurfPlan plan_surf_layers(int width, int height, int octaves, int layers) {
  SurfPlan plan{};
  plan.octaves = octaves;
  plan.layers = layers;
  for (int o = 0; o < octaves; ++o) {
    plan_layers(o, width, height, &plan);
    if (o < kSurfTiledOctaves)
      plan_tile(o, &plan);
    plan_search(o, &plan);
  }
  return plan;
}

void hessian_layers(const IntegralImageView& sum, const SurfLayerTable& layers,
                    const SurfPlan& plan, float threshold, cudaStream_t stream) {
  if (plan.hessian_blocks == 0)
    return;
  hessian_kernel<<<plan.hessian_blocks, dim3(kSurfTileWidth, kSurfTileHeight), plan.tile_bytes,
                   stream>>>(sum, layers, plan, threshold);
  check_launch("hessian_kernel");
}

void detect_surf_maxima(const IntegralImageView& sum, const SurfLayerTable& layers,
                        const SurfPlan& plan, float threshold, const SurfCandidateList& out,
                        cudaStream_t stream) {
  const int words = static_cast<int>(layers.mask_offset[layers.octaves]);
  if (words == 0)
    return;
  const int warps = (words + kWordsPerWarp - 1) / kWordsPerWarp;
  const int blocks = (warps * 32 + kDetectThreads - 1) / kDetectThreads;
  detect_kernel<<<blocks, kDetectThreads, 0, stream>>>(sum, layers, plan, threshold, out);
  check_launch("detect_kernel");
}

}  // namespace gpusift::cuda
