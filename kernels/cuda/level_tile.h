// SPDX-License-Identifier: LGPL-2.1-or-later
// The pieces of the one-pass blur kernels: a block loads a tile of its source with a halo into
// shared memory once, blurs each line in place, then the columns. Shared by the kernel that makes
// one level and the kernel that makes two in a row.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "gpusift/color.h"
#include "gpusift/sift_scale_space.h"
#include "pyramid_kernels.h"

namespace gpusift::cuda {

constexpr int kLevelThreads = 256;
constexpr int kLevelWarps = kLevelThreads / 32;
constexpr int kRowOutputsPerLane = 4;
constexpr int kLevelTileWidth = 32 * kRowOutputsPerLane;
// Two threads per column, each making N outputs: the tile is 2N rows high.
constexpr int kThreadsPerColumn = kLevelThreads / kLevelTileWidth;

// A blur's input rows: its own pixels, or with step 2 every other pixel of the previous octave's
// level, which is how OpenCV starts an octave. T is float, or uint8_t for a GRAY8 frame, whose
// values are brought to full range as they are read when they are limited range.
template <class T>
struct SourceRows {
  const T* data;
  int stride;  // in elements of T
  int step;
  LumaRange range = LumaRange::kFull;
  __device__ const T* row(int y) const { return data + static_cast<ptrdiff_t>(y * step) * stride; }
};
using LevelSource = SourceRows<float>;

__device__ __forceinline__ float source_value(const SourceRows<float>&, float value) {
  return value;
}
__device__ __forceinline__ float source_value(const SourceRows<uint8_t>& src, uint8_t value) {
  return luma_at_full_range(value, src.range);
}

// float4 reads that cover a lane's window of 4 outputs and radius R.
__host__ __device__ constexpr int window_vectors(int radius) {
  return (kRowOutputsPerLane + 2 * radius + 3) / 4;
}

// A tile of kLines lines of kLine floats, whose first column and line lie kHalo before the
// block's first output.
template <int Halo, int Lines, int Line>
struct TileShape {
  static constexpr int kHalo = Halo;
  static constexpr int kLines = Lines;
  static constexpr int kLine = Line;
};

// The one-level kernel's tile: 128 columns of output and a halo of R, 2N lines and a halo of R.
template <int R, int N>
using LevelTile = TileShape<R, kThreadsPerColumn * N + 2 * R,
                            (32 - 1) * kRowOutputsPerLane + 4 * window_vectors(R)>;

// A tile's lines, as a kernel parameter (clang cannot parse the array type spelled out there).
template <class Shape>
using TileLines = float (*)[Shape::kLine];

template <class Shape, class T>
__device__ void load_tile(TileLines<Shape> tile, const SourceRows<T>& src, int width, int height,
                          int x0, int y0) {
  constexpr int R = Shape::kHalo;
  constexpr int kLinesPerWarp = (Shape::kLines + kLevelWarps - 1) / kLevelWarps;
  constexpr int kPerLane = (Shape::kLine + 31) / 32;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // A lane loads the same columns of every line: reflected once, and only in edge tiles.
  const bool inside = x0 - R >= 0 && x0 - R + Shape::kLine <= width;
  int columns[kPerLane];
#pragma unroll
  for (int c = 0; c < kPerLane; ++c) {
    const int x = x0 - R + lane + 32 * c;
    columns[c] = (inside ? x : reflect101(x, width)) * src.step;
  }
  // All loads first, then all stores: the loads are independent, and the small octaves' few
  // blocks have nothing else to hide their latency behind.
  float loaded[kLinesPerWarp][kPerLane];
#pragma unroll
  for (int l = 0; l < kLinesPerWarp; ++l) {
    const int i = warp + l * kLevelWarps;
    if (i >= Shape::kLines)
      break;
    const T* row = src.row(reflect101(y0 + i - R, height));
#pragma unroll
    for (int c = 0; c < kPerLane; ++c) {
      if (lane + 32 * c < Shape::kLine)
        loaded[l][c] = source_value(src, row[columns[c]]);
    }
  }
#pragma unroll
  for (int l = 0; l < kLinesPerWarp; ++l) {
    const int i = warp + l * kLevelWarps;
    if (i >= Shape::kLines)
      break;
#pragma unroll
    for (int c = 0; c < kPerLane; ++c) {
      if (lane + 32 * c < Shape::kLine)
        tile[i][lane + 32 * c] = loaded[l][c];
    }
  }
}

// OpenCV's sum for one output of a symmetric kernel, window[R] the centre, with the roundings
// spelled out: unrolled, the compiler could fuse the centre's product instead of the loop-carried
// sum's.
template <int R>
__device__ __forceinline__ float blurred(const float* window, const GaussianTaps& taps) {
  float acc = __fmul_rn(taps.taps[0], window[R]);
#pragma unroll
  for (int k = 1; k <= R; ++k)
    acc = __fmaf_rn(taps.taps[k], __fadd_rn(window[R - k], window[R + k]), acc);
  return acc;
}

// Four outputs of a line from the window that starts at `first`, into registers.
template <int R, class Shape>
__device__ void blur_row_chunk(TileLines<Shape> tile, int line, int first, const GaussianTaps& taps,
                               float (&out)[kRowOutputsPerLane]) {
  constexpr int kVectors = window_vectors(R);
  float w[4 * kVectors];
#pragma unroll
  for (int v = 0; v < kVectors; ++v) {
    const float4 q = reinterpret_cast<const float4*>(tile[line] + first)[v];
    w[4 * v] = q.x;
    w[4 * v + 1] = q.y;
    w[4 * v + 2] = q.z;
    w[4 * v + 3] = q.w;
  }
#pragma unroll
  for (int o = 0; o < kRowOutputsPerLane; ++o)
    out[o] = blurred<R>(w + o, taps);
}

template <class Shape>
__device__ void store_row_chunk(TileLines<Shape> tile, int line, int first,
                                const float (&out)[kRowOutputsPerLane]) {
  reinterpret_cast<float4*>(tile[line] + first)[0] = make_float4(out[0], out[1], out[2], out[3]);
}

// Each warp blurs whole lines with radius R into their first Outputs columns, in place; a lane's
// four outputs replace the start of its own window. Past the first 128 outputs of a line (the
// two-level kernel's wider first level) the few chunks left of all the warp's lines go in one
// round, instead of a round a line with most lanes idle.
template <int R, int Outputs, class Shape>
__device__ void blur_tile_rows(TileLines<Shape> tile, const GaussianTaps& taps) {
  static_assert(Outputs % kRowOutputsPerLane == 0 && Outputs >= kLevelTileWidth);
  constexpr int kLeftChunks = (Outputs - kLevelTileWidth) / kRowOutputsPerLane;
  constexpr int kMaxLinesPerWarp = (Shape::kLines + kLevelWarps - 1) / kLevelWarps;
  static_assert(kLeftChunks * kMaxLinesPerWarp <= 32);
  static_assert(Outputs - kRowOutputsPerLane + 4 * window_vectors(R) <= Shape::kLine);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int i = warp; i < Shape::kLines; i += kLevelWarps) {
    float out[kRowOutputsPerLane];
    blur_row_chunk<R, Shape>(tile, i, lane * kRowOutputsPerLane, taps, out);
    __syncwarp();  // every lane has read its window before any overwrites it
    store_row_chunk<Shape>(tile, i, lane * kRowOutputsPerLane, out);
  }
  if constexpr (kLeftChunks > 0) {
    // These windows start past every output written above, and their outputs lie past every
    // window read above.
    const int line = warp + kLevelWarps * (lane / kLeftChunks);
    const int first = kLevelTileWidth + lane % kLeftChunks * kRowOutputsPerLane;
    const bool active = lane < kLeftChunks * kMaxLinesPerWarp && line < Shape::kLines;
    float out[kRowOutputsPerLane];
    if (active)
      blur_row_chunk<R, Shape>(tile, line, first, taps, out);
    __syncwarp();
    if (active)
      store_row_chunk<Shape>(tile, line, first, out);
  }
}

// A thread's N values of `column` from line `first` on, `offset` lines and columns into the
// tile: the pixels under its outputs, kept before a row pass overwrites them.
template <int Offset, int N, class Shape>
__device__ void load_tile_centres(TileLines<Shape> tile, int first, int column,
                                  float (&values)[N]) {
#pragma unroll
  for (int o = 0; o < N; ++o)
    values[o] = tile[first + o + Offset][column + Offset];
}

// The window of the column pass of a tile whose lines are blurred: for a thread's N outputs of
// `column`, lines first .. first + N + 2R - 1.
template <int R, int N, class Shape>
__device__ void load_column_window(TileLines<Shape> tile, int first, int column,
                                   float (&window)[N + 2 * R]) {
#pragma unroll
  for (int j = 0; j < N + 2 * R; ++j)
    window[j] = tile[first + j][column];
}

__device__ inline float* row_of(const DeviceImage& image, int y) {
  return image.data + static_cast<ptrdiff_t>(y) * image.stride;
}

}  // namespace gpusift::cuda
