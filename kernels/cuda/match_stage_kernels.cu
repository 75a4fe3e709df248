// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>

#include "cuda_check.h"
#include "match_kernels.h"

namespace gpusift::cuda {

namespace {

constexpr int kStageWarps = 8;
// Slots of a staged row handled by one lane (128 values / 32 lanes).
constexpr int kSlotsPerLane = kMaxMatchDescriptorSize / 32;
// A row's largest magnitude is scaled into [2^12, 2^13): far from fp16's overflow at 65504, and
// the products the tensor cores sum stay well inside float's range.
constexpr int kScaledExponent = 13;

__device__ float warp_max(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

__device__ double warp_sum(double v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__device__ int warp_sum(int v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// The set's bounds, raised once per block: one atomic per row on the same two words would
// serialise thousands of rows.
struct BlockBounds {
  unsigned norm_sq_bits, rounding_bits;
};

__device__ void clear_block_bounds(BlockBounds* bounds) {
  if (threadIdx.x == 0)
    bounds->norm_sq_bits = 0, bounds->rounding_bits = 0;
  __syncthreads();
}

__device__ void raise_block_bounds(BlockBounds* block, float norm_sq, float rounding) {
  atomicMax(&block->norm_sq_bits, __float_as_uint(norm_sq));
  atomicMax(&block->rounding_bits, __float_as_uint(rounding));
}

__device__ void publish_block_bounds(const BlockBounds* block, SetBounds* bounds) {
  __syncthreads();
  if (threadIdx.x != 0)
    return;
  if (block->norm_sq_bits)
    atomicMax(&bounds->max_norm_sq_bits, block->norm_sq_bits);
  if (block->rounding_bits)
    atomicMax(&bounds->max_rounding_bits, block->rounding_bits);
}

// The power of two 2^p that scales a row of largest magnitude `largest` into
// [2^(kScaledExponent-1), 2^kScaledExponent); p stays within float's normal exponents, so that
// 2^p and 2^-p are both floats (rows too small for that end up as zeros in fp16, which their
// measured rounding error accounts for).
__device__ int scale_exponent(float largest) {
  if (!(largest > 0.f) || !isfinite(largest))
    return 0;
  int exponent = 0;
  frexpf(largest, &exponent);
  return min(max(kScaledExponent - exponent, -126), 126);
}

// Blocks [0, query_blocks) stage the query, the rest the train set.
struct StagePlan {
  StagedSet query, train;
  int query_blocks;
};

__device__ void pick_set(const StagePlan& plan, MatchScalars* scalars, StagedSet* set,
                         SetBounds** bounds, int* block) {
  const bool query = static_cast<int>(blockIdx.x) < plan.query_blocks;
  *set = query ? plan.query : plan.train;
  *bounds = &scalars->bounds[query ? 0 : 1];
  *block = query ? blockIdx.x : blockIdx.x - plan.query_blocks;
}

__device__ void stage_float_row(const StagedSet& set, int row, BlockBounds* bounds) {
  const int lane = threadIdx.x % 32;
  if (row >= set.padded_count)
    return;
  const bool real = row < set.count;
  const float* values = static_cast<const float*>(set.values) + static_cast<size_t>(row) * set.size;
  const int slots = set.chunks * (kChunkBytes / 2);
  float x[kSlotsPerLane];
  float largest = 0.f;
#pragma unroll
  for (int s = 0; s < kSlotsPerLane; ++s) {
    const int k = lane + 32 * s;
    x[s] = real && k < set.size ? values[k] : 0.f;
    largest = fmaxf(largest, fabsf(x[s]));
  }
  largest = warp_max(largest);
  const int p = scale_exponent(largest);
  const float scale = ldexpf(1.f, p);
  const double unscale = ldexp(1.0, -p);
  __half* staged = reinterpret_cast<__half*>(const_cast<uint32_t*>(set.words)) +
                   static_cast<size_t>(row) * slots;
  double norm_sq = 0.0, error_sq = 0.0;
#pragma unroll
  for (int s = 0; s < kSlotsPerLane; ++s) {
    const int k = lane + 32 * s;
    if (k >= slots)
      continue;
    const __half h = __float2half_rn(x[s] * scale);
    staged[k] = h;
    const double back = static_cast<double>(__half2float(h)) * unscale;
    norm_sq += back * back;
    const double error = static_cast<double>(x[s]) - back;
    error_sq += error * error;
  }
  norm_sq = warp_sum(norm_sq);
  error_sq = warp_sum(error_sq);
  if (lane != 0)
    return;
  const size_t r = static_cast<size_t>(row);
  if (!real) {
    const_cast<float*>(set.norm_sq)[r] = INFINITY;
    const_cast<float*>(set.unscale)[r] = 1.f;
    const_cast<float*>(set.rounding)[r] = 0.f;
    return;
  }
  const float norm = static_cast<float>(norm_sq);
  // Rounded up, with room for the double sum's own rounding.
  const float rounding = __double2float_ru(sqrt(error_sq) * (1.0 + 0x1p-40));
  const_cast<float*>(set.norm_sq)[r] = norm;
  const_cast<float*>(set.unscale)[r] = static_cast<float>(unscale);
  const_cast<float*>(set.rounding)[r] = rounding;
  raise_block_bounds(bounds, norm, rounding);
}

__device__ void stage_byte_row(const StagedSet& set, int row, BlockBounds* bounds) {
  const int lane = threadIdx.x % 32;
  if (row >= set.padded_count)
    return;
  const bool real = row < set.count;
  const uint8_t* values =
      static_cast<const uint8_t*>(set.values) + static_cast<size_t>(row) * set.size;
  const int slots = set.chunks * kChunkBytes;
  uint8_t* staged = reinterpret_cast<uint8_t*>(const_cast<uint32_t*>(set.words)) +
                    static_cast<size_t>(row) * slots;
  int norm_sq = 0;
#pragma unroll
  for (int s = 0; s < kSlotsPerLane; ++s) {
    const int k = lane + 32 * s;
    if (k >= slots)
      continue;
    const int x = real && k < set.size ? values[k] : 0;
    staged[k] = static_cast<uint8_t>(x);
    norm_sq += x * x;
  }
  norm_sq = warp_sum(norm_sq);
  if (lane != 0)
    return;
  const size_t r = static_cast<size_t>(row);
  const float norm = real ? static_cast<float>(norm_sq) : INFINITY;
  const_cast<float*>(set.norm_sq)[r] = norm;
  const_cast<float*>(set.unscale)[r] = 1.f;
  const_cast<float*>(set.rounding)[r] = 0.f;
  if (real)
    raise_block_bounds(bounds, norm, 0.f);
}

template <bool kBytes>
__global__ void stage_rows(StagePlan plan, MatchScalars* scalars) {
  __shared__ BlockBounds block_bounds;
  StagedSet set;
  SetBounds* bounds;
  int block;
  pick_set(plan, scalars, &set, &bounds, &block);
  clear_block_bounds(&block_bounds);
  const int row = block * kStageWarps + threadIdx.x / 32;
  if (kBytes)
    stage_byte_row(set, row, &block_bounds);
  else
    stage_float_row(set, row, &block_bounds);
  publish_block_bounds(&block_bounds, bounds);
}

}  // namespace

void stage_sets(const StagedSet& query, const StagedSet& train, MatchScalars* scalars,
                cudaStream_t stream) {
  const auto blocks_of = [](const StagedSet& set) {
    return (set.padded_count + kStageWarps - 1) / kStageWarps;
  };
  const StagePlan plan{query, train, blocks_of(query)};
  const int blocks = plan.query_blocks + blocks_of(train);
  if (blocks == 0)
    return;
  if (query.bytes)
    stage_rows<true><<<blocks, kStageWarps * 32, 0, stream>>>(plan, scalars);
  else
    stage_rows<false><<<blocks, kStageWarps * 32, 0, stream>>>(plan, scalars);
  check_launch("stage descriptor rows");
}

}  // namespace gpusift::cuda
