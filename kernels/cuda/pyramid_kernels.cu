#include <cstdint>
#include <utility>
#include <vector>

#include "cuda_check.h"
#include "gpusift/color.h"
#include "overlapped_launch.h"
#include "pyramid_kernels.h"

namespace gpusift::cuda {

namespace {

constexpr int kRowTile = 128;  // outputs per block along a row
constexpr int kRowsPerBlock = 4;
constexpr int kColumnTileWidth = 32;
constexpr int kColumnTileHeight = 32;
constexpr int kColumnThreadsY = 8;

__device__ float* row_of(const DeviceImage& image, int y) {
  return image.data + static_cast<ptrdiff_t>(y) * image.stride;
}

__global__ void convert_kernel(const uint8_t* frame, size_t pitch, PixelFormat format, int bpp,
                               DeviceImage dst) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= dst.width || y >= dst.height)
    return;
  row_of(dst, y)[x] = gray8_of_pixel(frame + y * pitch + static_cast<size_t>(x) * bpp, format);
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

// The same two passes for the radii of the usual sigmas, with the radius known at compile time so
// that each thread keeps a window of its inputs in registers and makes several outputs from it:
// the wide kernels above read 2r + 1 values from shared memory per output, which bounds them.
// Same sums, in the same order, with the roundings spelled out: unrolled, the compiler could fuse
// the centre's product instead of the loop-carried sum's, as the loops above do.
constexpr int kRegisterRadiusMax = 16;
constexpr int kRowOutputsPerThread = 4;
constexpr int kRowThreadsX = 32;
constexpr int kRowLines = 8;
constexpr int kRowTileWidth = kRowOutputsPerThread * kRowThreadsX;
constexpr int kWindowColumnOutputs = 8;
constexpr int kWindowColumnThreadsX = 32;
constexpr int kWindowColumnThreadsY = 8;
constexpr int kWindowColumnTileHeight = kWindowColumnOutputs * kWindowColumnThreadsY;

template <int R>
__global__ void __launch_bounds__(kRowThreadsX* kRowLines)
    blur_rows_window_kernel(DeviceImage src, DeviceImage dst, GaussianTaps taps) {
  wait_for_previous_kernel();
  let_next_kernel_start();
  constexpr int kWindowVectors = (kRowOutputsPerThread + 2 * R + 3) / 4;
  constexpr int kLine = (kRowThreadsX - 1) * kRowOutputsPerThread + 4 * kWindowVectors;
  __shared__ __align__(16) float lines[kRowLines][kLine];
  const int y = blockIdx.y * kRowLines + threadIdx.y;
  if (y >= src.height)
    return;
  const int x0 = blockIdx.x * kRowTileWidth;
  const float* in = row_of(src, y);
  float* line = lines[threadIdx.y];
  for (int i = threadIdx.x; i < kLine; i += kRowThreadsX)
    line[i] = in[reflect101(x0 + i - R, src.width)];
  __syncwarp();  // a line is one warp's
  const int first = threadIdx.x * kRowOutputsPerThread;
  float w[4 * kWindowVectors];
#pragma unroll
  for (int v = 0; v < kWindowVectors; ++v) {
    const float4 q = reinterpret_cast<const float4*>(line + first)[v];
    w[4 * v] = q.x;
    w[4 * v + 1] = q.y;
    w[4 * v + 2] = q.z;
    w[4 * v + 3] = q.w;
  }
  float* out = row_of(dst, y);
#pragma unroll
  for (int o = 0; o < kRowOutputsPerThread; ++o) {
    const int x = x0 + first + o;
    float acc = __fmul_rn(taps.taps[0], w[o + R]);
#pragma unroll
    for (int k = 1; k <= R; ++k)
      acc = __fmaf_rn(taps.taps[k], __fadd_rn(w[o + R - k], w[o + R + k]), acc);
    if (x < src.width)
      out[x] = acc;
  }
}

template <int R>
__global__ void __launch_bounds__(kWindowColumnThreadsX* kWindowColumnThreadsY)
    blur_columns_window_kernel(DeviceImage src, DeviceImage dst, GaussianTaps taps,
                               DeviceImage previous, DeviceImage dog) {
  wait_for_previous_kernel();
  let_next_kernel_start();
  constexpr int kSpan = kWindowColumnTileHeight + 2 * R;
  __shared__ float tile[kSpan][kWindowColumnThreadsX];
  const int x = blockIdx.x * kWindowColumnThreadsX + threadIdx.x;
  const int y0 = blockIdx.y * kWindowColumnTileHeight;
  const int first = threadIdx.y * kWindowColumnOutputs;
  // Read before any store: behind the stores, each read would wait for the one before it, which
  // on the small octaves' few blocks is most of the kernel's time.
  float before[kWindowColumnOutputs];
  if (dog.data && x < src.width) {
#pragma unroll
    for (int o = 0; o < kWindowColumnOutputs; ++o)
      before[o] = row_of(previous, min(y0 + first + o, src.height - 1))[x];
  }
  if (x < src.width) {
    for (int i = threadIdx.y; i < kSpan; i += kWindowColumnThreadsY)
      tile[i][threadIdx.x] = row_of(src, reflect101(y0 + i - R, src.height))[x];
  }
  __syncthreads();
  if (x >= src.width)
    return;
  float w[kWindowColumnOutputs + 2 * R];
#pragma unroll
  for (int j = 0; j < kWindowColumnOutputs + 2 * R; ++j)
    w[j] = tile[first + j][threadIdx.x];
#pragma unroll
  for (int o = 0; o < kWindowColumnOutputs; ++o) {
    const int y = y0 + first + o;
    if (y >= src.height)
      return;
    float acc = __fmul_rn(taps.taps[0], w[o + R]);
#pragma unroll
    for (int k = 1; k <= R; ++k)
      acc = __fmaf_rn(taps.taps[k], __fadd_rn(w[o + R - k], w[o + R + k]), acc);
    row_of(dst, y)[x] = acc;
    if (dog.data)
      row_of(dog, y)[x] = acc - before[o];
  }
}

template <int R>
void blur_with_windows(const DeviceImage& src, const DeviceImage& scratch, const DeviceImage& dst,
                       const GaussianTaps& taps, const DeviceImage& previous,
                       const DeviceImage& dog, cudaStream_t stream) {
  const dim3 row_block(kRowThreadsX, kRowLines);
  const dim3 row_grid((src.width + kRowTileWidth - 1) / kRowTileWidth,
                      (src.height + kRowLines - 1) / kRowLines);
  launch_overlapped(blur_rows_window_kernel<R>, row_grid, row_block, 0, stream,
                    "blur_rows_window_kernel", src, scratch, taps);
  const dim3 column_block(kWindowColumnThreadsX, kWindowColumnThreadsY);
  const dim3 column_grid((src.width + kWindowColumnThreadsX - 1) / kWindowColumnThreadsX,
                         (src.height + kWindowColumnTileHeight - 1) / kWindowColumnTileHeight);
  launch_overlapped(blur_columns_window_kernel<R>, column_grid, column_block, 0, stream,
                    "blur_columns_window_kernel", scratch, dst, taps, previous, dog);
}

using WindowBlur = void (*)(const DeviceImage&, const DeviceImage&, const DeviceImage&,
                            const GaussianTaps&, const DeviceImage&, const DeviceImage&,
                            cudaStream_t);

template <int... Radii>
WindowBlur window_blur_for(int radius, std::integer_sequence<int, Radii...>) {
  WindowBlur found = nullptr;
  ((radius == Radii + 1 ? (found = &blur_with_windows<Radii + 1>, 0) : 0), ...);
  return found;
}

dim3 pixel_grid(int width, int height, dim3 block) {
  return dim3((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
}

}  // namespace

GaussianTaps make_gaussian_taps(float sigma) {
  GaussianTaps t{};
  t.radius = gaussian_radius(sigma);
  std::vector<float> full(2 * t.radius + 1);
  gaussian_taps(sigma, t.radius, full.data());
  for (int k = 0; k <= t.radius; ++k)
    t.taps[k] = full[t.radius + k];
  return t;
}

void convert_to_float(const void* frame, size_t pitch_bytes, PixelFormat format,
                      const DeviceImage& dst, cudaStream_t stream) {
  const dim3 block(32, 8);
  convert_kernel<<<pixel_grid(dst.width, dst.height, block), block, 0, stream>>>(
      static_cast<const uint8_t*>(frame), pitch_bytes, format, bytes_per_pixel(format), dst);
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

void gaussian_blur(const DeviceImage& src, const DeviceImage& scratch, const DeviceImage& dst,
                   const GaussianTaps& taps, const DeviceImage* dog, cudaStream_t stream) {
  if (const WindowBlur blur =
          window_blur_for(taps.radius, std::make_integer_sequence<int, kRegisterRadiusMax>{})) {
    const DeviceImage no_image{nullptr, 0, 0, 0};
    blur(src, scratch, dst, taps, dog ? src : no_image, dog ? *dog : no_image, stream);
    return;
  }
  gaussian_blur_any_radius(src, scratch, dst, taps, dog, stream);
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
  const DeviceImage no_image{nullptr, 0, 0, 0};
  launch_overlapped(blur_columns_kernel, column_grid, column_block, column_shared, stream,
                    "blur_columns_kernel", scratch, dst, taps, dog ? src : no_image,
                    dog ? *dog : no_image);
}

}  // namespace gpusift::cuda
