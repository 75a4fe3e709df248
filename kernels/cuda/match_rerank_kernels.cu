// The exact half of matching: which screened candidates can still be among the two nearest, their
// exact distances, the exhaustive scans of rows the screening cannot settle, and the decision.
#include <cuda_runtime.h>

#include <algorithm>

#include <cstdint>

#include "cuda_check.h"
#include "gpusift/match_distance.h"
#include "match_kernels.h"

namespace gpusift::cuda {

namespace {

constexpr int kRerankWarps = 8;
constexpr int kScanThreads = 256;
constexpr int kScanBlocks = 264;
constexpr unsigned kFullMask = 0xffffffffu;

// Error bounds of the screening, in squared distance (see candidate_limit).
// The fp32 tensor-core sum of 128 products, with truncating additions, is off by at most about
// 128 * 2^-23 of the summed magnitudes; 2^-13 of the squared norms leaves a margin of seven.
constexpr double kScreenRelativeError = 0x1p-13;
// The exact distance's own rounding: about 21 float roundings of non-negative terms.
constexpr double kExactRelativeError = 0x1p-16;
// Absolute slack for results in float's subnormal range, where relative bounds do not hold.
constexpr double kUnderflowSlack = 0x1p-100;
constexpr double kLimitMargin = 1.0 + 0x1p-20;
// Squared norms below this keep every approximate value far from float's overflow at 2^128.
constexpr double kLargestTrustedLimit = 0x1p100;

// The largest approximate squared distance a train row can have and still be among the two
// nearest of a query row, given the second-smallest approximate value a2. With rounding errors
// rho (of the two rows, L2) and an approximation error eps of the squared distance of the
// rounded rows: the two rows behind a2 are exactly at most u = ((sqrt(a2 + eps) + rho)^2 in
// real distance, so the exact second nearest is at most that; a row at least as near has a
// real distance of at most sqrt(u) and so an approximate value of at most
// (sqrt(u) + rho)^2 + eps. Bytes are staged and summed exactly: the limit is a2 itself.
__device__ double candidate_limit(double a2, double row_norm_sq, double row_rounding,
                                  double column_max_norm_sq, double column_max_rounding,
                                  bool bytes) {
  if (bytes)
    return a2 * kLimitMargin;
  const double rho = row_rounding + column_max_rounding;
  const double eps = kScreenRelativeError * (row_norm_sq + column_max_norm_sq) + kUnderflowSlack;
  const double second = sqrt(a2 + eps) + rho;
  const double u = ((1.0 + kExactRelativeError) * (second * second) + 2.0 * kUnderflowSlack) /
                   (1.0 - kExactRelativeError);
  const double reach = sqrt(u) + rho;
  return (reach * reach + eps) * kLimitMargin + kUnderflowSlack;
}

template <bool kBytes>
__device__ float exact_distance(const StagedSet& rows, int row, const StagedSet& columns,
                                int column) {
  const size_t r = static_cast<size_t>(row) * rows.size;
  const size_t c = static_cast<size_t>(column) * columns.size;
  if (kBytes)
    return squared_distance(static_cast<const uint8_t*>(rows.values) + r,
                            static_cast<const uint8_t*>(columns.values) + c, rows.size);
  return squared_distance(static_cast<const float*>(rows.values) + r,
                          static_cast<const float*>(columns.values) + c, rows.size);
}

__device__ void merge_in_warp(TwoNearest* nearest) {
  for (int offset = 16; offset > 0; offset >>= 1) {
    const float best_d = __shfl_xor_sync(kFullMask, nearest->best.distance_sq, offset);
    const int32_t best_i = __shfl_xor_sync(kFullMask, nearest->best.index, offset);
    const float second_d = __shfl_xor_sync(kFullMask, nearest->second.distance_sq, offset);
    const int32_t second_i = __shfl_xor_sync(kFullMask, nearest->second.index, offset);
    if (best_i >= 0)
      offer(best_d, best_i, nearest);
    if (second_i >= 0)
      offer(second_d, second_i, nearest);
  }
}

__device__ float as_float(unsigned bits) {
  return __uint_as_float(bits);
}

template <bool kBytes>
__global__ void rerank_kernel(StagedSet rows, StagedSet columns, const SetBounds* column_bounds,
                              const ScreenEntry* partial, int splits, TwoNearest* nearest,
                              int* exhaustive_rows, int* exhaustive_count) {
  const int row = blockIdx.x * kRerankWarps + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows.count)
    return;
  const int entries = splits * kScreenKeep;
  auto entry_at = [&](int e) {
    const int split = e / kScreenKeep, k = e % kScreenKeep;
    return partial[(static_cast<size_t>(split) * rows.padded_count + row) * kScreenKeep + k];
  };

  // The two smallest approximate values (as a multiset).
  float first = INFINITY, second = INFINITY;
  for (int e = lane; e < entries; e += 32) {
    const ScreenEntry entry = entry_at(e);
    if (entry.index < 0)
      continue;
    second = fminf(second, fmaxf(first, entry.distance_sq));
    first = fminf(first, entry.distance_sq);
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    const float other_first = __shfl_xor_sync(kFullMask, first, offset);
    const float other_second = __shfl_xor_sync(kFullMask, second, offset);
    second = fminf(fmaxf(first, other_first), fminf(second, other_second));
    first = fminf(first, other_first);
  }
  const double limit = candidate_limit(second, rows.norm_sq[row], rows.rounding[row],
                                       as_float(column_bounds->max_norm_sq_bits),
                                       as_float(column_bounds->max_rounding_bits), kBytes);

  // Settled when every split's list ends past the limit (or is not full): then no row left out
  // of the lists is within it. Not when the limit is out of the range where the screening's
  // floats are sure not to overflow (huge descriptors; or no second neighbour at all).
  bool settled = limit < kLargestTrustedLimit;
  for (int e = lane; e < entries; e += 32) {
    if (e % kScreenKeep != kScreenKeep - 1)
      continue;
    const ScreenEntry last = entry_at(e);
    settled = settled && (last.index < 0 || static_cast<double>(last.distance_sq) > limit);
  }
  if (!__all_sync(kFullMask, settled)) {
    if (lane == 0)
      exhaustive_rows[atomicAdd(exhaustive_count, 1)] = row;
    return;
  }

  TwoNearest mine = no_neighbours();
  for (int e = lane; e < entries; e += 32) {
    const ScreenEntry entry = entry_at(e);
    if (entry.index >= 0 && static_cast<double>(entry.distance_sq) <= limit)
      offer(exact_distance<kBytes>(rows, row, columns, entry.index), entry.index, &mine);
  }
  merge_in_warp(&mine);
  if (lane == 0)
    nearest[row] = mine;
}

// One block per (listed row, column chunk): every thread measures columns a whole grid of chunks
// apart, so that even a handful of listed rows spread over the whole GPU.
template <bool kBytes>
__global__ void exhaustive_chunk_kernel(StagedSet rows, StagedSet columns, const int* list,
                                        const int* count, int chunks, TwoNearest* chunk_nearest) {
  __shared__ TwoNearest warp_nearest[kScanThreads / 32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int work = *count * chunks;
  for (int item = blockIdx.x; item < work; item += gridDim.x) {
    const int row = list[item / chunks];
    TwoNearest mine = no_neighbours();
    for (int column = item % chunks * kScanThreads + threadIdx.x; column < columns.count;
         column += chunks * kScanThreads)
      offer(exact_distance<kBytes>(rows, row, columns, column), column, &mine);
    merge_in_warp(&mine);
    if (lane == 0)
      warp_nearest[warp] = mine;
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int w = 1; w < kScanThreads / 32; ++w) {
        if (warp_nearest[w].best.index >= 0)
          offer(warp_nearest[w].best.distance_sq, warp_nearest[w].best.index, &mine);
        if (warp_nearest[w].second.index >= 0)
          offer(warp_nearest[w].second.distance_sq, warp_nearest[w].second.index, &mine);
      }
      chunk_nearest[item] = mine;
    }
    __syncthreads();
  }
}

// A warp per listed row merges its chunks' two nearest; the order of neighbours is total, so the
// merge order does not change the result.
__global__ void merge_chunks_kernel(const int* list, const int* count, int chunks,
                                    const TwoNearest* chunk_nearest, TwoNearest* nearest) {
  const int lane = threadIdx.x % 32;
  const int warps = gridDim.x * (blockDim.x / 32);
  for (int k = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; k < *count; k += warps) {
    TwoNearest mine = no_neighbours();
    for (int c = lane; c < chunks; c += 32) {
      const TwoNearest& chunk = chunk_nearest[static_cast<size_t>(k) * chunks + c];
      if (chunk.best.index >= 0)
        offer(chunk.best.distance_sq, chunk.best.index, &mine);
      if (chunk.second.index >= 0)
        offer(chunk.second.distance_sq, chunk.second.index, &mine);
    }
    merge_in_warp(&mine);
    if (lane == 0)
      nearest[list[k]] = mine;
  }
}

__global__ void list_every_row(int count, int* list, int* list_count) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
    list[i] = i;
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *list_count = count;
}

__global__ void decide_kernel(const TwoNearest* forward, const TwoNearest* backward,
                              int query_count, float ratio, bool cross_check,
                              const MatchScalars* scalars, MatchScalars* header,
                              Decision* decisions) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0)
    *header = *scalars;
  if (i >= query_count)
    return;
  const TwoNearest n = forward[i];
  bool keep = passes_ratio_test(n, ratio);
  if (keep && cross_check)
    keep = backward[n.best.index].best.index == i;
  decisions[i] = Decision{keep ? n.best.index : -1, keep ? sqrtf(n.best.distance_sq) : 0.f};
}

int scan_chunks(const StagedSet& columns) {
  return std::clamp((columns.count + kScanThreads - 1) / kScanThreads, 1, kScanChunks);
}

template <bool kBytes>
void launch_exhaustive(const StagedSet& rows, const StagedSet& columns, const int* list,
                       const int* count, TwoNearest* chunk_nearest, TwoNearest* nearest,
                       cudaStream_t stream) {
  const int chunks = scan_chunks(columns);
  exhaustive_chunk_kernel<kBytes>
      <<<kScanBlocks, kScanThreads, 0, stream>>>(rows, columns, list, count, chunks, chunk_nearest);
  check_launch("exhaustive nearest-neighbour scan");
  merge_chunks_kernel<<<kScanBlocks, kScanThreads, 0, stream>>>(list, count, chunks, chunk_nearest,
                                                                nearest);
  check_launch("merge of the exhaustive scan's chunks");
}

void exhaustive(const StagedSet& rows, const StagedSet& columns, const int* list, const int* count,
                TwoNearest* chunk_nearest, TwoNearest* nearest, cudaStream_t stream) {
  if (rows.bytes)
    launch_exhaustive<true>(rows, columns, list, count, chunk_nearest, nearest, stream);
  else
    launch_exhaustive<false>(rows, columns, list, count, chunk_nearest, nearest, stream);
}

}  // namespace

void rerank(const StagedSet& rows, const StagedSet& columns, const SetBounds* column_bounds,
            const ScreenEntry* partial, int splits, TwoNearest* nearest, int* exhaustive_rows,
            int* exhaustive_count, TwoNearest* chunk_nearest, cudaStream_t stream) {
  const int blocks = (rows.count + kRerankWarps - 1) / kRerankWarps;
  if (rows.bytes)
    rerank_kernel<true><<<blocks, kRerankWarps * 32, 0, stream>>>(
        rows, columns, column_bounds, partial, splits, nearest, exhaustive_rows, exhaustive_count);
  else
    rerank_kernel<false><<<blocks, kRerankWarps * 32, 0, stream>>>(
        rows, columns, column_bounds, partial, splits, nearest, exhaustive_rows, exhaustive_count);
  check_launch("rerank screened neighbours");
  exhaustive(rows, columns, exhaustive_rows, exhaustive_count, chunk_nearest, nearest, stream);
}

void nearest_by_exhaustive_scan(const StagedSet& rows, const StagedSet& columns,
                                TwoNearest* nearest, int* exhaustive_rows, int* exhaustive_count,
                                TwoNearest* chunk_nearest, cudaStream_t stream) {
  list_every_row<<<(rows.count + 255) / 256, 256, 0, stream>>>(rows.count, exhaustive_rows,
                                                               exhaustive_count);
  check_launch("list rows for exhaustive scans");
  exhaustive(rows, columns, exhaustive_rows, exhaustive_count, chunk_nearest, nearest, stream);
}

void decide_matches(const TwoNearest* forward, const TwoNearest* backward, int query_count,
                    float ratio, bool cross_check, const MatchScalars* scalars,
                    MatchScalars* header, Decision* decisions, cudaStream_t stream) {
  decide_kernel<<<(query_count + 255) / 256, 256, 0, stream>>>(
      forward, backward, query_count, ratio, cross_check, scalars, header, decisions);
  check_launch("decide matches");
}

}  // namespace gpusift::cuda
