// SPDX-License-Identifier: LGPL-2.1-or-later
// Screening: approximate squared distances of every (query, train) pair on the tensor cores
// (mma.sync: fp16 products summed in fp32, or bytes in exact int32) and the few smallest per
// query row and train split. Each warp keeps 32 query rows as mma fragments in registers for
// the whole kernel; train rows stream through shared memory in double-buffered tiles.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "cuda_check.h"
#include "match_kernels.h"

namespace gpusift::cuda {

namespace {

constexpr int kWarps = kScreenRowsPerBlock / 32;
constexpr int kThreads = kWarps * 32;
constexpr int kWordsPerChunk = kChunkBytes / 4;

// Shared-memory row stride in words: 4 words over a multiple of 32 banks, so that the eight rows
// an 8x8 ldmatrix reads start on different bank quads.
template <int kChunks>
struct TileStride {
  static constexpr int value = kChunks * kWordsPerChunk + 4;
};

template <int kChunks>
struct Tile {
  uint32_t words[2][kScreenTileRows * TileStride<kChunks>::value];
  float norm_sq[2][kScreenTileRows];
  float unscale[2][kScreenTileRows];
};

// mma.sync with fp16 and u8 operands, ldmatrix and cp.async need compute capability 8.0; for
// older devices the kernel is empty and the host takes the exhaustive path instead. The host
// pass sees everything, as templates' names must resolve there.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define GPUSIFT_SCREEN_ON_TENSOR_CORES 1
#endif

#ifdef GPUSIFT_SCREEN_ON_TENSOR_CORES

__device__ void copy_async_16(void* shared, const void* global) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(address), "l"(global));
}

__device__ void commit_copies() {
  asm volatile("cp.async.commit_group;\n" ::);
}

template <int kPending>
__device__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// Four 8x8 matrices of 16-bit elements (here: any 4-byte words) from rows given per lane.
__device__ void load_matrix_x4(const uint32_t* row, uint32_t* r) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

// d += a * b for one 16x8 tile and one 32-byte chunk of k.
__device__ void mma_chunk(float* d, const uint32_t* a, const uint32_t* b) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ void mma_chunk(int* d, const uint32_t* a, const uint32_t* b) {
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// The kScreenKeep smallest (distance, column) seen, ascending; slots past the seen are empty.
struct Smallest {
  float value[kScreenKeep];
  int32_t index[kScreenKeep];
};

__device__ void clear(Smallest* s) {
#pragma unroll
  for (int k = 0; k < kScreenKeep; ++k)
    s->value[k] = INFINITY, s->index[k] = -1;
}

// Inserts by four independent comparisons with the kept values (ascending), so that the selects
// that shift them are no longer a chain: the epilogue, not the tensor cores, bounds the kernel.
// A value equal to a kept one goes after it; NaN is never taken.
__device__ void insert(Smallest* s, float value, int32_t index) {
  static_assert(kScreenKeep == 4, "the shifts below are written out for four slots");
  const bool below0 = value < s->value[0], below1 = value < s->value[1];
  const bool below2 = value < s->value[2], below3 = value < s->value[3];
  s->value[3] = below2 ? s->value[2] : (below3 ? value : s->value[3]);
  s->index[3] = below2 ? s->index[2] : (below3 ? index : s->index[3]);
  s->value[2] = below1 ? s->value[1] : (below2 ? value : s->value[2]);
  s->index[2] = below1 ? s->index[1] : (below2 ? index : s->index[2]);
  s->value[1] = below0 ? s->value[0] : (below1 ? value : s->value[1]);
  s->index[1] = below0 ? s->index[0] : (below1 ? index : s->index[1]);
  s->value[0] = below0 ? value : s->value[0];
  s->index[0] = below0 ? index : s->index[0];
}

// Merges the lists of the four lanes that share a row (a quad holds disjoint columns).
__device__ void merge_quad(Smallest* s) {
#pragma unroll
  for (int offset = 1; offset <= 2; offset <<= 1) {
    float value[kScreenKeep];
    int32_t index[kScreenKeep];
#pragma unroll
    for (int k = 0; k < kScreenKeep; ++k) {
      value[k] = __shfl_xor_sync(0xffffffffu, s->value[k], offset);
      index[k] = __shfl_xor_sync(0xffffffffu, s->index[k], offset);
    }
#pragma unroll
    for (int k = 0; k < kScreenKeep; ++k)
      if (index[k] >= 0)
        insert(s, value[k], index[k]);
  }
}

template <int kChunks>
__device__ void load_tile_async(const StagedSet& columns, int tile, Tile<kChunks>* shared,
                                int buffer) {
  constexpr int kPiecesPerRow = kChunks * 2;  // 16-byte pieces
  constexpr int kRowWords = kChunks * kWordsPerChunk;
  const int first_row = tile * kScreenTileRows;
  const uint32_t* source = columns.words + static_cast<size_t>(first_row) * kRowWords;
  for (int piece = threadIdx.x; piece < kScreenTileRows * kPiecesPerRow; piece += kThreads) {
    const int row = piece / kPiecesPerRow, part = piece % kPiecesPerRow;
    copy_async_16(&shared->words[buffer][row * TileStride<kChunks>::value + part * 4],
                  source + row * kRowWords + part * 4);
  }
  constexpr int kFloatPieces = kScreenTileRows / 4;
  if (threadIdx.x < kFloatPieces)
    copy_async_16(&shared->norm_sq[buffer][threadIdx.x * 4],
                  columns.norm_sq + first_row + threadIdx.x * 4);
  else if (threadIdx.x < 2 * kFloatPieces)
    copy_async_16(&shared->unscale[buffer][(threadIdx.x - kFloatPieces) * 4],
                  columns.unscale + first_row + (threadIdx.x - kFloatPieces) * 4);
  commit_copies();
}

#endif

template <int kChunks, bool kBytes>
__global__ void __launch_bounds__(kThreads)
    screen_kernel(StagedSet rows, StagedSet columns, int tiles_per_split, ScreenEntry* partial) {
#ifdef GPUSIFT_SCREEN_ON_TENSOR_CORES
  using Accumulator = typename std::conditional<kBytes, int, float>::type;
  constexpr int kTileTiles = kScreenTileRows / 8;  // mma n-tiles of 8 train rows per tile
  constexpr int kRowWords = kChunks * kWordsPerChunk;
  __shared__ __align__(16) Tile<kChunks> shared;

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int group = lane / 4, in_group = lane % 4;
  const int warp_row = blockIdx.x * kScreenRowsPerBlock + warp * 32;
  const int split = blockIdx.y;
  const int column_tiles = columns.padded_count / kScreenTileRows;
  const int first_tile = split * tiles_per_split;
  const int end_tile = min(first_tile + tiles_per_split, column_tiles);

  // This lane's rows: warp_row + m * 16 + half * 8 + group, list m * 2 + half.
  uint32_t a[2][kChunks][4];
  float row_norm[4], row_factor[4];
#pragma unroll
  for (int m = 0; m < 2; ++m) {
    const int r0 = warp_row + m * 16 + group, r1 = r0 + 8;
    const uint32_t* w0 = rows.words + static_cast<size_t>(r0) * kRowWords;
    const uint32_t* w1 = rows.words + static_cast<size_t>(r1) * kRowWords;
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      a[m][c][0] = w0[c * kWordsPerChunk + in_group];
      a[m][c][1] = w1[c * kWordsPerChunk + in_group];
      a[m][c][2] = w0[c * kWordsPerChunk + in_group + 4];
      a[m][c][3] = w1[c * kWordsPerChunk + in_group + 4];
    }
    row_norm[m * 2] = rows.norm_sq[r0], row_norm[m * 2 + 1] = rows.norm_sq[r1];
    row_factor[m * 2] = 2.f * rows.unscale[r0], row_factor[m * 2 + 1] = 2.f * rows.unscale[r1];
  }
  Smallest smallest[4];
#pragma unroll
  for (int l = 0; l < 4; ++l)
    clear(&smallest[l]);

  if (first_tile < end_tile)
    load_tile_async(columns, first_tile, &shared, 0);
  for (int tile = first_tile; tile < end_tile; ++tile) {
    const int buffer = (tile - first_tile) & 1;
    if (tile + 1 < end_tile) {
      load_tile_async(columns, tile + 1, &shared, buffer ^ 1);
      wait_copies<1>();
    } else {
      wait_copies<0>();
    }
    __syncthreads();
    const uint32_t* words = shared.words[buffer];
#pragma unroll 2
    for (int n = 0; n < kTileTiles; ++n) {
      Accumulator d[2][4] = {};
      const uint32_t* lane_row =
          words + (n * 8 + (lane & 7)) * TileStride<kChunks>::value + (lane >> 3) * 4;
#pragma unroll
      for (int c = 0; c < kChunks; c += 2) {
        uint32_t b[4];
        load_matrix_x4(lane_row + c * kWordsPerChunk, b);
        mma_chunk(d[0], a[0][c], b);
        mma_chunk(d[1], a[1][c], b);
        mma_chunk(d[0], a[0][c + 1], b + 2);
        mma_chunk(d[1], a[1][c + 1], b + 2);
      }
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int local = n * 8 + in_group * 2 + e;
        const float column_norm = shared.norm_sq[buffer][local];
        const float column_unscale = shared.unscale[buffer][local];
        const int32_t column = tile * kScreenTileRows + local;
#pragma unroll
        for (int m = 0; m < 2; ++m) {
#pragma unroll
          for (int half = 0; half < 2; ++half) {
            const int l = m * 2 + half;
            const float dot = static_cast<float>(d[m][half * 2 + e]);
            const float distance =
                (row_norm[l] + column_norm) - (dot * row_factor[l]) * column_unscale;
            insert(&smallest[l], distance, column);
          }
        }
      }
    }
    __syncthreads();
  }

  // Each row's lists merged across its quad; lane in_group then writes list in_group.
#pragma unroll
  for (int l = 0; l < 4; ++l)
    merge_quad(&smallest[l]);
#pragma unroll
  for (int l = 0; l < 4; ++l) {
    if (l != in_group)
      continue;
    const int row = warp_row + (l / 2) * 16 + (l % 2) * 8 + group;
    ScreenEntry* out =
        partial + (static_cast<size_t>(split) * rows.padded_count + row) * kScreenKeep;
#pragma unroll
    for (int k = 0; k < kScreenKeep; ++k)
      out[k] = ScreenEntry{smallest[l].value[k], smallest[l].index[k]};
  }
#else
  (void)rows, (void)columns, (void)tiles_per_split, (void)partial;
#endif
}

template <int kChunks, bool kBytes>
void launch(const StagedSet& rows, const StagedSet& columns, int splits, int tiles_per_split,
            ScreenEntry* partial, cudaStream_t stream) {
  const dim3 grid(rows.padded_count / kScreenRowsPerBlock, splits);
  screen_kernel<kChunks, kBytes>
      <<<grid, kThreads, 0, stream>>>(rows, columns, tiles_per_split, partial);
  check_launch("screen descriptor distances");
}

}  // namespace

void screen(const StagedSet& rows, const StagedSet& columns, int splits, int tiles_per_split,
            ScreenEntry* partial, cudaStream_t stream) {
  if (rows.bytes)
    launch<4, true>(rows, columns, splits, tiles_per_split, partial, stream);
  else if (rows.chunks == 4)
    launch<4, false>(rows, columns, splits, tiles_per_split, partial, stream);
  else
    launch<8, false>(rows, columns, splits, tiles_per_split, partial, stream);
}

}  // namespace gpusift::cuda
