#include <algorithm>
#include <cstddef>

#include "cuda_check.h"
#include "feature_kernels.h"
#include "overlapped_launch.h"
#include "pyramid_kernels.h"

namespace gpusift::cuda {

namespace {

constexpr int kThreads = 1024;
// Past this many pixels an octave's levels are faster as many blocks' kernels than as one block.
constexpr int kSmallOctavePixels = 10240;
// The current level's rows carry this many reflected pixels on each side, so that a row window
// never needs a reflection.
constexpr int kPad = kOnePassRadiusMax;
constexpr int kColumnOutputs = 8;

struct SmallOctaves {
  OctavePlanes octave[kMaxOctaves];
  int first, count, levels, n_octave_layers;
  int radius[kMaxScaleLevels];
  float taps[kMaxScaleLevels][kOnePassRadiusMax + 1];
};

// Shared memory of an octave: `level`, the current level with padded rows, and `rows`, its row
// pass, with kPad rows above and room below for whole column windows.
struct SharedPlanes {
  int width, height, quads, level_stride, rows_stride;
  __host__ __device__ explicit SharedPlanes(int w, int h)
      : width(w),
        height(h),
        quads((w + 3) / 4),
        level_stride(4 * quads + 2 * kPad),
        rows_stride(4 * quads) {}
  __host__ __device__ int padded_height() const {
    return (height + kColumnOutputs - 1) / kColumnOutputs * kColumnOutputs;
  }
  __host__ __device__ size_t level_floats() const {
    return static_cast<size_t>(height) * level_stride;
  }
  __host__ __device__ size_t rows_floats() const {
    return static_cast<size_t>(padded_height() + 2 * kPad) * rows_stride;
  }
  __device__ float& at(float* level, int y, int x) const {
    return level[y * level_stride + kPad + x];
  }
  __device__ float* row_pass_row(float* rows, int y) const {
    return rows + (y + kPad) * rows_stride;
  }
};

// The cells (x, y) of a grid `width` wide that one thread takes, kThreads apart in row-major
// order, with no division per cell.
struct StridedCells {
  int width, x, y, step_x, step_y;
  __device__ explicit StridedCells(int grid_width)
      : width(grid_width),
        x(threadIdx.x % grid_width),
        y(threadIdx.x / grid_width),
        step_x(kThreads % grid_width),
        step_y(kThreads / grid_width) {}
  __device__ void next() {
    x += step_x;
    y += step_y;
    if (x >= width) {
      x -= width;
      ++y;
    }
  }
};

__device__ float* row_of(const OctavePlanes& o, float* base, int index, int y) {
  return base + index * o.plane + static_cast<ptrdiff_t>(y) * o.stride;
}

__device__ void fill_pads(const SharedPlanes& p, float* level) {
  const int right = p.level_stride - kPad - p.width;
  const int per_row = kPad + right;
  for (StridedCells c(per_row); c.y < p.height; c.next()) {
    const int x = c.x < kPad ? c.x - kPad : p.width + c.x - kPad;
    p.at(level, c.y, x) = p.at(level, c.y, reflect101(x, p.width));
  }
}

// rows(y, x) for y in [-R, padded height + R): the row blur of level(reflect101(y), x), four
// outputs a thread from a window of aligned float4.
template <int R>
__device__ void blur_rows(const SharedPlanes& p, float* level, float* rows, const float* taps) {
  constexpr int kLead = (R + 3) / 4 * 4;
  constexpr int kVectors = (4 + 2 * kLead) / 4;
  const int lines = p.padded_height() + 2 * R;
  for (StridedCells c(p.quads); c.y < lines; c.next()) {
    const int q = c.x, y = c.y - R;
    const float* source = &p.at(level, reflect101(y, p.height), 4 * q - kLead);
    float w[4 * kVectors];
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      const float4 f = reinterpret_cast<const float4*>(source)[v];
      w[4 * v] = f.x;
      w[4 * v + 1] = f.y;
      w[4 * v + 2] = f.z;
      w[4 * v + 3] = f.w;
    }
    float out[4];
#pragma unroll
    for (int o = 0; o < 4; ++o) {
      const int c = kLead + o;
      float acc = __fmul_rn(taps[0], w[c]);
#pragma unroll
      for (int k = 1; k <= R; ++k)
        acc = __fmaf_rn(taps[k], __fadd_rn(w[c - k], w[c + k]), acc);
      out[o] = acc;
    }
    reinterpret_cast<float4*>(p.row_pass_row(rows, y))[q] =
        make_float4(out[0], out[1], out[2], out[3]);
  }
}

// The column blur of `rows` becomes level l (in shared and global memory) and DoG l - 1.
template <int R>
__device__ void blur_columns(const SharedPlanes& p, float* level, float* rows, const float* taps,
                             const OctavePlanes& octave, int l) {
  const int bands = p.padded_height() / kColumnOutputs;
  for (StridedCells c(p.width); c.y < bands; c.next()) {
    const int x = c.x, y0 = c.y * kColumnOutputs;
    float w[kColumnOutputs + 2 * R];
#pragma unroll
    for (int j = 0; j < kColumnOutputs + 2 * R; ++j)
      w[j] = p.row_pass_row(rows, y0 - R + j)[x];
#pragma unroll
    for (int o = 0; o < kColumnOutputs; ++o) {
      const int y = y0 + o;
      if (y >= p.height)
        break;
      float acc = __fmul_rn(taps[0], w[o + R]);
#pragma unroll
      for (int k = 1; k <= R; ++k)
        acc = __fmaf_rn(taps[k], __fadd_rn(w[o + R - k], w[o + R + k]), acc);
      float& current = p.at(level, y, x);
      row_of(octave, octave.gaussian, l, y)[x] = acc;
      row_of(octave, octave.dog, l - 1, y)[x] = acc - current;
      current = acc;
    }
  }
}

template <int R = 1>
__device__ void blur_level(int radius, const SharedPlanes& p, float* level, float* rows,
                           const float* taps, const OctavePlanes& octave, int l) {
  if constexpr (R <= kOnePassRadiusMax) {
    if (radius != R) {
      blur_level<R + 1>(radius, p, level, rows, taps, octave, l);
      return;
    }
    blur_rows<R>(p, level, rows, taps);
    __syncthreads();
    blur_columns<R>(p, level, rows, taps, octave, l);
    __syncthreads();
  }
}

__global__ void __launch_bounds__(kThreads) small_octaves_kernel(SmallOctaves job) {
  wait_for_previous_kernel();
  let_next_kernel_start();
  extern __shared__ __align__(16) float shared[];
  // In shared memory, as the parameters indexed by a level known only at run time could be
  // copied to local memory.
  __shared__ float taps[kMaxScaleLevels][kOnePassRadiusMax + 1];
  for (int i = threadIdx.x; i < job.levels * (kOnePassRadiusMax + 1); i += kThreads)
    taps[i / (kOnePassRadiusMax + 1)][i % (kOnePassRadiusMax + 1)] =
        job.taps[i / (kOnePassRadiusMax + 1)][i % (kOnePassRadiusMax + 1)];
  for (int o = job.first; o < job.count; ++o) {
    const OctavePlanes octave = job.octave[o];
    const OctavePlanes parent = job.octave[o - 1];
    const SharedPlanes p(octave.width, octave.height);
    float* level = shared;
    float* rows = shared + p.level_floats();
    // Level 0: every other pixel of the parent's level n_octave_layers, which this block wrote
    // itself where the parent is small too (a block sees its own writes after a barrier).
    for (StridedCells c(p.width); c.y < p.height; c.next()) {
      const int x = c.x, y = c.y;
      const float value = row_of(parent, parent.gaussian, job.n_octave_layers, 2 * y)[2 * x];
      p.at(level, y, x) = value;
      row_of(octave, octave.gaussian, 0, y)[x] = value;
    }
    __syncthreads();
    for (int l = 1; l < job.levels; ++l) {
      fill_pads(p, level);
      __syncthreads();
      blur_level(job.radius[l], p, level, rows, taps[l], octave, l);
    }
  }
}

size_t shared_bytes_for(int width, int height) {
  const SharedPlanes p(width, height);
  return sizeof(float) * (p.level_floats() + p.rows_floats());
}

}  // namespace

bool small_octaves_fit(int width, int height, const GaussianTaps* taps, int levels) {
  if (width * height > kSmallOctavePixels || levels > kMaxScaleLevels)
    return false;
  for (int l = 1; l < levels; ++l) {
    if (taps[l].radius < 1 || taps[l].radius > kOnePassRadiusMax)
      return false;
  }
  int device = 0, limit = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  const size_t static_bytes = sizeof(float) * kMaxScaleLevels * (kOnePassRadiusMax + 1);
  return shared_bytes_for(width, height) + static_bytes <= static_cast<size_t>(limit);
}

void build_small_octaves(const OctavePlanes* octaves, int first, int count, int levels,
                         int n_octave_layers, const GaussianTaps* taps, cudaStream_t stream) {
  SmallOctaves job{};
  std::copy(octaves, octaves + count, job.octave);
  job.first = first;
  job.count = count;
  job.levels = levels;
  job.n_octave_layers = n_octave_layers;
  for (int l = 1; l < levels; ++l) {
    job.radius[l] = taps[l].radius;
    std::copy(taps[l].taps, taps[l].taps + taps[l].radius + 1, job.taps[l]);
  }
  const size_t bytes = shared_bytes_for(octaves[first].width, octaves[first].height);
  check(cudaFuncSetAttribute(small_octaves_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(bytes)),
        "cudaFuncSetAttribute");
  launch_overlapped(small_octaves_kernel, dim3(1), dim3(kThreads), bytes, stream,
                    "small_octaves_kernel", job);
}

}  // namespace gpusift::cuda
