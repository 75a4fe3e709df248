// SPDX-License-Identifier: LGPL-2.1-or-later
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.h"
#include "gpusift/color.h"
#include "gpusift/error.h"
#include "level_tile.h"
#include "overlapped_launch.h"
#include "pyramid_kernels.h"

namespace gpusift::cuda {

namespace {

constexpr int kRowTile = 128;  // outputs per block along a row
constexpr int kRowsPerBlock = 4;
constexpr int kColumnTileWidth = 32;
constexpr int kColumnTileHeight = 32;
constexpr int kColumnThreadsY = 8;

__global__ void convert_kernel(const uint8_t* frame, size_t pitch, PixelFormat format, int bpp,
                               LumaRange range, DeviceImage dst) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= dst.width || y >= dst.height)
    return;
  row_of(dst, y)[x] = luma_at_full_range(
      gray8_of_pixel(frame + y * pitch + static_cast<size_t>(x) * bpp, format), range);
}

// GRAY8 rows whose starts allow it are read four pixels to a thread: at a byte per thread the
// loads stayed far below bandwidth (17 us for a 2560x1920 frame on an H100).
constexpr int kGrayPixelsPerThread = 4;

__global__ void convert_gray_kernel(const uint8_t* frame, size_t pitch, LumaRange range,
                                    DeviceImage dst) {
  const int x = (blockIdx.x * blockDim.x + threadIdx.x) * kGrayPixelsPerThread;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= dst.width || y >= dst.height)
    return;
  const uint8_t* in = frame + y * pitch + x;
  float* out = row_of(dst, y) + x;
  if (x + kGrayPixelsPerThread <= dst.width) {
    const uchar4 p = *reinterpret_cast<const uchar4*>(in);
    *reinterpret_cast<float4*>(out) =
        make_float4(luma_at_full_range(p.x, range), luma_at_full_range(p.y, range),
                    luma_at_full_range(p.z, range), luma_at_full_range(p.w, range));
    return;
  }
  for (int i = 0; x + i < dst.width; ++i)
    out[i] = luma_at_full_range(in[i], range);
}

bool aligned_to(const void* p, size_t bytes) {
  return reinterpret_cast<uintptr_t>(p) % bytes == 0;
}

__global__ void upscale_kernel(DeviceImage src, DeviceImage dst) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= dst.width || y >= dst.height)
    return;
  const FloatImageView view{src.data, src.width, src.height, src.stride};
  row_of(dst, y)[x] = upscaled_pixel(view, y, x);
}

__global__ void decimate_kernel(DeviceImage src, DeviceImage dst) {
  wait_for_previous_kernel();
  let_next_kernel_start();
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= dst.width || y >= dst.height)
    return;
  row_of(dst, y)[x] = row_of(src, 2 * y)[2 * x];
}

__global__ void blur_rows_kernel(DeviceImage src, DeviceImage dst, GaussianTaps taps) {
  wait_for_previous_kernel();
  let_next_kernel_start();
  extern __shared__ float tile[];  // kRowsPerBlock rows of kRowTile + 2 radius
  const int r = taps.radius;
  const int span = kRowTile + 2 * r;
  const int y = blockIdx.y * kRowsPerBlock + threadIdx.y;
  const int x0 = blockIdx.x * kRowTile;
  float* line = tile + threadIdx.y * span;
  if (y < src.height) {
    const float* in = row_of(src, y);
    for (int i = threadIdx.x; i < span; i += blockDim.x)
      line[i] = in[reflect101(x0 + i - r, src.width)];
  }
  __syncthreads();
  const int x = x0 + threadIdx.x;
  if (y >= src.height || x >= src.width)
    return;
  const float* centre = line + threadIdx.x + r;
  float acc = taps.taps[0] * centre[0];
  for (int k = 1; k <= r; ++k)
    acc += taps.taps[k] * (centre[-k] + centre[k]);
  row_of(dst, y)[x] = acc;
}

__global__ void blur_columns_kernel(DeviceImage src, DeviceImage dst, GaussianTaps taps,
                                    DeviceImage previous, DeviceImage dog) {
  wait_for_previous_kernel();
  let_next_kernel_start();
  extern __shared__ float tile[];  // (kColumnTileHeight + 2 radius) rows of kColumnTileWidth
  const int r = taps.radius;
  const int x = blockIdx.x * kColumnTileWidth + threadIdx.x;
  const int y0 = blockIdx.y * kColumnTileHeight;
  const int span = kColumnTileHeight + 2 * r;
  if (x < src.width) {
    for (int i = threadIdx.y; i < span; i += blockDim.y)
      tile[i * kColumnTileWidth + threadIdx.x] = row_of(src, reflect101(y0 + i - r, src.height))[x];
  }
  __syncthreads();
  if (x >= src.width)
    return;
  for (int oy = threadIdx.y; oy < kColumnTileHeight; oy += blockDim.y) {
    const int y = y0 + oy;
    if (y >= src.height)
      return;
    const float* centre = tile + (oy + r) * kColumnTileWidth + threadIdx.x;
    float acc = taps.taps[0] * centre[0];
    for (int k = 1; k <= r; ++k)
      acc += taps.taps[k] * (centre[-k * kColumnTileWidth] + centre[k * kColumnTileWidth]);
    row_of(dst, y)[x] = acc;
    if (dog.data)
      row_of(dog, y)[x] = acc - row_of(previous, y)[x];
  }
}

// One launch per level for the radii of the usual sigmas: a block loads its tile with the
// halo once, blurs the rows in place in shared memory and then the columns from registers, so
// that the row pass's output never goes through global memory and a level costs one kernel
// instead of two; on the small octaves, where each kernel is mostly its latency, that is most of
// the scale space's time. Same sums, in the same order, as the kernels above (level_tile.h).
// dst = blur(source); with `dog`, also dog = dst - source; with `level0`, also level0 = source.
// Its rows start at tile `first_tile_row`. Three blocks per multiprocessor: at the registers it
// would take unbounded, only two fit.
template <int R, int N>
__global__ void __launch_bounds__(kLevelThreads, 3)
    blur_level_kernel(LevelSource src, DeviceImage dst, GaussianTaps taps, DeviceImage dog,
                      DeviceImage level0, int first_tile_row) {
  wait_for_previous_kernel();
  let_next_kernel_start();
  using Tile = LevelTile<R, N>;
  __shared__ __align__(16) float tile[Tile::kLines][Tile::kLine];
  const int width = dst.width, height = dst.height;
  const int x0 = blockIdx.x * kLevelTileWidth;
  const int y0 = (first_tile_row + static_cast<int>(blockIdx.y)) * kThreadsPerColumn * N;
  load_tile<Tile>(tile, src, width, height, x0, y0);
  __syncthreads();

  const int column = threadIdx.x % kLevelTileWidth;
  const int first = threadIdx.x / kLevelTileWidth * N;
  float source[N];
  if (dog.data || level0.data) {
    load_tile_centres<R, N, Tile>(tile, first, column, source);
    __syncthreads();  // the row pass overwrites these
  }
  blur_tile_rows<R, kLevelTileWidth, Tile>(tile, taps);
  __syncthreads();

  const int x = x0 + column;
  if (x >= width)
    return;
  float w[N + 2 * R];
  load_column_window<R, N, Tile>(tile, first, column, w);
#pragma unroll
  for (int o = 0; o < N; ++o) {
    const int y = y0 + first + o;
    if (y >= height)
      return;
    const float acc = blurred<R>(w + o, taps);
    row_of(dst, y)[x] = acc;
    if (dog.data)
      row_of(dog, y)[x] = acc - source[o];
    if (level0.data)
      row_of(level0, y)[x] = source[o];
  }
}

template <int R, int N>
void launch_blur_level(dim3 grid, const LevelSource& src, const DeviceImage& dst,
                       const GaussianTaps& taps, const DeviceImage& dog, const DeviceImage& level0,
                       RowRange rows, cudaStream_t stream) {
  constexpr int kHeight = kThreadsPerColumn * N;
  const int end = std::min(rows.end, dst.height);
  if (rows.first < 0 || rows.first % kHeight != 0)
    throw Error(ErrorCode::kInvalidArgument,
                "level rows must start on a multiple of " + std::to_string(kHeight));
  if (end <= rows.first)
    return;
  grid.y = (end - rows.first + kHeight - 1) / kHeight;
  launch_overlapped(blur_level_kernel<R, N>, grid, dim3(kLevelThreads), 0, stream,
                    "blur_level_kernel", src, dst, taps, dog, level0, rows.first / kHeight);
}

// The tile heights one_pass_tile_height() chooses from, each the kernel's 2N rows.
static_assert(kThreadsPerColumn == 2);

template <int R>
void blur_level(const LevelSource& src, const DeviceImage& dst, const GaussianTaps& taps,
                const DeviceImage& dog, const DeviceImage& level0, RowRange rows,
                cudaStream_t stream) {
  const dim3 grid((dst.width + kLevelTileWidth - 1) / kLevelTileWidth);
  switch (one_pass_tile_height(dst.width, dst.height)) {
    case 32:
      launch_blur_level<R, 16>(grid, src, dst, taps, dog, level0, rows, stream);
      break;
    case 16:
      launch_blur_level<R, 8>(grid, src, dst, taps, dog, level0, rows, stream);
      break;
    default:
      launch_blur_level<R, 4>(grid, src, dst, taps, dog, level0, rows, stream);
  }
}

using LevelBlur = void (*)(const LevelSource&, const DeviceImage&, const GaussianTaps&,
                           const DeviceImage&, const DeviceImage&, RowRange, cudaStream_t);

template <int... Radii>
LevelBlur level_blur_for(int radius, std::integer_sequence<int, Radii...>) {
  LevelBlur found = nullptr;
  ((radius == Radii + 1 ? (found = &blur_level<Radii + 1>, 0) : 0), ...);
  return found;
}

LevelBlur level_blur_for(int radius) {
  return level_blur_for(radius, std::make_integer_sequence<int, kOnePassRadiusMax>{});
}

dim3 pixel_grid(int width, int height, dim3 block) {
  return dim3((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
}

}  // namespace

// Tall tiles share their halo lines among more outputs; below two blocks a multiprocessor, a
// block's own latency is the kernel's, and lower tiles spread the level over more of them.
int one_pass_tile_height(int width, int height) {
  int device = 0, multiprocessors = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device);
  const int columns = (width + kLevelTileWidth - 1) / kLevelTileWidth;
  for (const int tile_height : {32, 16}) {
    if (columns * ((height + tile_height - 1) / tile_height) >= 2 * multiprocessors)
      return tile_height;
  }
  return 8;
}

GaussianTaps make_gaussian_taps(float sigma) {
  GaussianTaps t{};
  t.radius = gaussian_radius(sigma);
  std::vector<float> full(2 * t.radius + 1);
  gaussian_taps(sigma, t.radius, full.data());
  for (int k = 0; k <= t.radius; ++k)
    t.taps[k] = full[t.radius + k];
  return t;
}

void convert_to_float(const void* frame, size_t pitch_bytes, PixelFormat format, LumaRange range,
                      const DeviceImage& dst, cudaStream_t stream) {
  const dim3 block(32, 8);
  const bool gray_rows_aligned = format == PixelFormat::kGray8 && aligned_to(frame, 4) &&
                                 pitch_bytes % 4 == 0 && aligned_to(dst.data, 16) &&
                                 dst.stride % 4 == 0;
  if (gray_rows_aligned) {
    const int threads_per_row = (dst.width + kGrayPixelsPerThread - 1) / kGrayPixelsPerThread;
    convert_gray_kernel<<<pixel_grid(threads_per_row, dst.height, block), block, 0, stream>>>(
        static_cast<const uint8_t*>(frame), pitch_bytes, range, dst);
    check_launch("convert_gray_kernel");
    return;
  }
  convert_kernel<<<pixel_grid(dst.width, dst.height, block), block, 0, stream>>>(
      static_cast<const uint8_t*>(frame), pitch_bytes, format, bytes_per_pixel(format), range, dst);
  check_launch("convert_kernel");
}

void upscale_2x(const DeviceImage& src, const DeviceImage& dst, cudaStream_t stream) {
  const dim3 block(32, 8);
  upscale_kernel<<<pixel_grid(dst.width, dst.height, block), block, 0, stream>>>(src, dst);
  check_launch("upscale_kernel");
}

void decimate_2x(const DeviceImage& src, const DeviceImage& dst, cudaStream_t stream) {
  const dim3 block(32, 8);
  launch_overlapped(decimate_kernel, pixel_grid(dst.width, dst.height, block), block, 0, stream,
                    "decimate_kernel", src, dst);
}

bool blur_needs_scratch(const GaussianTaps& taps) {
  return level_blur_for(taps.radius) == nullptr;
}

void gaussian_blur(const DeviceImage& src, const DeviceImage& scratch, const DeviceImage& dst,
                   const GaussianTaps& taps, const DeviceImage* dog, cudaStream_t stream) {
  if (const LevelBlur blur = level_blur_for(taps.radius)) {
    blur(LevelSource{src.data, src.stride, 1}, dst, taps, dog ? *dog : kNoImage, kNoImage,
         RowRange{}, stream);
    return;
  }
  gaussian_blur_any_radius(src, scratch, dst, taps, dog, stream);
}

void gaussian_blur_rows(const DeviceImage& src, const DeviceImage& dst, const GaussianTaps& taps,
                        const DeviceImage* dog, RowRange rows, cudaStream_t stream) {
  const LevelBlur blur = level_blur_for(taps.radius);
  if (!blur)
    throw Error(ErrorCode::kInvalidArgument,
                "no one-pass blur kernel for radius " + std::to_string(taps.radius));
  blur(LevelSource{src.data, src.stride, 1}, dst, taps, dog ? *dog : kNoImage, kNoImage, rows,
       stream);
}

void decimate_and_blur(const DeviceImage& parent, const DeviceImage& level0,
                       const DeviceImage& scratch, const DeviceImage& dst, const GaussianTaps& taps,
                       const DeviceImage& dog, cudaStream_t stream) {
  if (const LevelBlur blur = level_blur_for(taps.radius)) {
    blur(LevelSource{parent.data, parent.stride, 2}, dst, taps, dog, level0, RowRange{}, stream);
    return;
  }
  decimate_2x(parent, level0, stream);
  gaussian_blur_any_radius(level0, scratch, dst, taps, &dog, stream);
}

void gaussian_blur_any_radius(const DeviceImage& src, const DeviceImage& scratch,
                              const DeviceImage& dst, const GaussianTaps& taps,
                              const DeviceImage* dog, cudaStream_t stream) {
  const dim3 row_block(kRowTile, kRowsPerBlock);
  const dim3 row_grid((src.width + kRowTile - 1) / kRowTile,
                      (src.height + kRowsPerBlock - 1) / kRowsPerBlock);
  const size_t row_shared = sizeof(float) * kRowsPerBlock * (kRowTile + 2 * taps.radius);
  launch_overlapped(blur_rows_kernel, row_grid, row_block, row_shared, stream, "blur_rows_kernel",
                    src, scratch, taps);

  const dim3 column_block(kColumnTileWidth, kColumnThreadsY);
  const dim3 column_grid((src.width + kColumnTileWidth - 1) / kColumnTileWidth,
                         (src.height + kColumnTileHeight - 1) / kColumnTileHeight);
  const size_t column_shared =
      sizeof(float) * kColumnTileWidth * (kColumnTileHeight + 2 * taps.radius);
  launch_overlapped(blur_columns_kernel, column_grid, column_block, column_shared, stream,
                    "blur_columns_kernel", scratch, dst, taps, dog ? src : kNoImage,
                    dog ? *dog : kNoImage);
}

}  // namespace gpusift::cuda
