// SPDX-License-Identifier: LGPL-2.1-or-later
// The integral image: rows scanned by one block each, then columns in strips. Sums are unsigned
// 32-bit and wrap around; modular addition is associative, so any order of additions gives the
// CPU's table bit for bit.
#include <cub/block/block_scan.cuh>

#include "cuda_check.h"
#include "gpusift/color.h"
#include "surf_kernels.h"

namespace gpusift::cuda {

namespace {

constexpr int kRowThreads = 128;
constexpr int kRowItems = 8;  // consecutive pixels per thread
constexpr int kRowTile = kRowThreads * kRowItems;

constexpr int kStripWidth = 32;     // columns per block
constexpr int kStripSegments = 32;  // row segments per column, one per thread

__device__ uint32_t gray8_at(const uint8_t* row, int x, PixelFormat format, int bpp,
                             LumaRange range) {
  return luma_at_full_range(gray8_of_pixel(row + static_cast<size_t>(x) * bpp, format), range);
}

// Row y of the frame becomes row y + 1 of the table: column 0 is zero, column x + 1 the sum of
// pixels 0..x.
__global__ void integral_rows_kernel(const uint8_t* frame, size_t pitch, PixelFormat format,
                                     int bpp, LumaRange range, int width, uint32_t* table,
                                     int stride) {
  using BlockScan = cub::BlockScan<uint32_t, kRowThreads>;
  __shared__ typename BlockScan::TempStorage scan_storage;
  __shared__ uint32_t tile[kRowTile];
  const int y = blockIdx.x;
  const uint8_t* in = frame + static_cast<size_t>(y) * pitch;
  uint32_t* out = table + static_cast<size_t>(y + 1) * stride;
  if (threadIdx.x == 0)
    out[0] = 0;
  uint32_t carry = 0;
  for (int x0 = 0; x0 < width; x0 += kRowTile) {
    for (int k = threadIdx.x; k < kRowTile; k += kRowThreads)
      tile[k] = x0 + k < width ? gray8_at(in, x0 + k, format, bpp, range) : 0u;
    __syncthreads();
    uint32_t items[kRowItems];
    for (int k = 0; k < kRowItems; ++k)
      items[k] = tile[threadIdx.x * kRowItems + k];
    uint32_t tile_total = 0;
    BlockScan(scan_storage).InclusiveSum(items, items, tile_total);
    __syncthreads();
    for (int k = 0; k < kRowItems; ++k)
      tile[threadIdx.x * kRowItems + k] = items[k] + carry;
    __syncthreads();
    for (int k = threadIdx.x; k < kRowTile && x0 + k < width; k += kRowThreads)
      out[1 + x0 + k] = tile[k];
    carry += tile_total;
    __syncthreads();
  }
}

// Column sums over rows 1..height: each thread sums one segment of a column, a scan of the
// segment totals in shared memory gives its offset, and a second pass writes the running sums.
__global__ void integral_columns_kernel(uint32_t* table, int columns, int height, int stride) {
  __shared__ uint32_t segment_totals[kStripSegments][kStripWidth];
  const int x = blockIdx.x * kStripWidth + threadIdx.x;
  const int rows_per_segment = (height + kStripSegments - 1) / kStripSegments;
  const int first = 1 + threadIdx.y * rows_per_segment;
  const int last = min(first + rows_per_segment, height + 1);
  uint32_t* column = table + x;
  uint32_t total = 0;
  if (x < columns) {
    for (int y = first; y < last; ++y)
      total += column[static_cast<size_t>(y) * stride];
  }
  segment_totals[threadIdx.y][threadIdx.x] = total;
  __syncthreads();
  if (x >= columns)
    return;
  uint32_t running = 0;
  for (int s = 0; s < static_cast<int>(threadIdx.y); ++s)
    running += segment_totals[s][threadIdx.x];
  for (int y = first; y < last; ++y) {
    running += column[static_cast<size_t>(y) * stride];
    column[static_cast<size_t>(y) * stride] = running;
  }
}

}  // namespace

void integral_image(const void* frame, size_t pitch_bytes, PixelFormat format, LumaRange range,
                    int width, int height, uint32_t* table, int stride, cudaStream_t stream) {
  check(cudaMemsetAsync(table, 0, sizeof(uint32_t) * (width + 1), stream),
        "cudaMemsetAsync (integral row 0)");
  integral_rows_kernel<<<height, kRowThreads, 0, stream>>>(
      static_cast<const uint8_t*>(frame), pitch_bytes, format, bytes_per_pixel(format), range,
      width, table, stride);
  check_launch("integral_rows_kernel");
  const int columns = width + 1;
  integral_columns_kernel<<<(columns + kStripWidth - 1) / kStripWidth,
                            dim3(kStripWidth, kStripSegments), 0, stream>>>(table, columns, height,
                                                                            stride);
  check_launch("integral_columns_kernel");
}

}  // namespace gpusift::cuda
