// SPDX-License-Identifier: LGPL-2.1-or-later
// The exact half of matching: which screened candidates can still be among the two nearest, their
// exact distances, the exhaustive scans of rows the screening cannot settle, and the decision.
#include <cuda_runtime.h>

#include <algorithm>

#include <cstdint>
#include <type_traits>

#include "cuda_check.h"
#include "gpusift/match_distance.h"
#include "match_kernels.h"

namespace gpusift::cuda {

namespace {

constexpr int kRerankWarps = 8;
constexpr unsigned kFullMask = 0xffffffffu;

// Exhaustive scans: a group of kDistanceLanes lanes measures one column, lane l summing the values
// squared_distance puts into its sum l, so that the group reads a column row's consecutive values.
static_assert(kDistanceLanes == 8, "the scan's shuffles combine eight lanes");
constexpr int kScanThreads = 128;
constexpr int kScanWarps = kScanThreads / 32;
constexpr int kScanGroups = kScanThreads / kDistanceLanes;  // columns per pass of a block
// Listed rows per block item: each column value loaded serves all of them.
constexpr int kScanRows = 4;
constexpr int kScanValues = kMaxMatchDescriptorSize / kDistanceLanes;  // per lane and row
// Items (kScanRows listed rows x a chunk of columns) to aim for: several blocks per multiprocessor.
constexpr int kScanItems = 1024;
constexpr int kMergeThreads = 256;
constexpr int kMergeBlocks = 264;

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

// Lanes closer than lowest_offset are left out (in a scan, they hold copies of the same result).
__device__ void merge_in_warp(TwoNearest* nearest, int lowest_offset = 1) {
  for (int offset = 16; offset >= lowest_offset; offset >>= 1) {
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

// Column chunks per group of kScanRows listed rows: enough items to fill the GPU when few rows are
// listed, no chunk shorter than a pass, and no more than the `capacity` entries of chunk_nearest.
// Both kernels of a scan derive it from the listed count alike.
__device__ int scan_chunks(int count, int column_count, long long capacity) {
  const int row_groups = max((count + kScanRows - 1) / kScanRows, 1);
  const int passes = max((column_count + kScanGroups - 1) / kScanGroups, 1);
  const long long room = capacity / max(count, 1);
  return static_cast<int>(max(
      1LL,
      min(static_cast<long long>(min(passes, (kScanItems + row_groups - 1) / row_groups)), room)));
}

template <bool kBytes>
using ScanValue = std::conditional_t<kBytes, int32_t, float>;

template <bool kBytes>
__device__ ScanValue<kBytes> scan_value(const void* values, size_t i) {
  if constexpr (kBytes)
    return static_cast<const uint8_t*>(values)[i];
  else
    return static_cast<const float*>(values)[i];
}

// One block per item (up to kScanRows listed rows, a contiguous chunk of columns). The group's
// sums are those of squared_distance and are combined in combine_distance_lanes' order (float
// addition is commutative), so the distance is squared_distance's bit for bit.
template <bool kBytes>
__global__ void __launch_bounds__(kScanThreads)
    exhaustive_chunk_kernel(StagedSet rows, StagedSet columns, const int* list,
                            const int* count_on_device, long long capacity,
                            TwoNearest* chunk_nearest) {
  using Value = ScanValue<kBytes>;
  __shared__ TwoNearest warp_nearest[kScanRows][kScanWarps];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int group = threadIdx.x / kDistanceLanes, part = threadIdx.x % kDistanceLanes;
  const int size = rows.size;
  const int count = *count_on_device;
  const int chunks = scan_chunks(count, columns.count, capacity);
  const int passes = (columns.count + kScanGroups - 1) / kScanGroups;
  const long long items = static_cast<long long>((count + kScanRows - 1) / kScanRows) * chunks;
  for (long long item = blockIdx.x; item < items; item += gridDim.x) {
    const int first = static_cast<int>(item / chunks) * kScanRows;
    const int chunk = static_cast<int>(item % chunks);
    const int listed = min(kScanRows, count - first);

    Value query[kScanRows][kScanValues];
#pragma unroll
    for (int r = 0; r < kScanRows; ++r) {
      const size_t base = r < listed ? static_cast<size_t>(list[first + r]) * size : 0;
#pragma unroll
      for (int j = 0; j < kScanValues; ++j) {
        const int k = j * kDistanceLanes + part;
        query[r][j] = r < listed && k < size ? scan_value<kBytes>(rows.values, base + k) : Value(0);
      }
    }
    TwoNearest nearest[kScanRows];
#pragma unroll
    for (int r = 0; r < kScanRows; ++r)
      nearest[r] = no_neighbours();

    const int begin =
        static_cast<int>(static_cast<long long>(chunk) * passes / chunks) * kScanGroups;
    const int end =
        min(columns.count,
            static_cast<int>(static_cast<long long>(chunk + 1) * passes / chunks) * kScanGroups);
    // Every lane runs every pass: the shuffles need the whole warp.
    for (int pass = begin; pass < end; pass += kScanGroups) {
      const int column = pass + group;
      const bool real = column < end;
      const size_t base = static_cast<size_t>(real ? column : 0) * size;
      Value values[kScanValues];
#pragma unroll
      for (int j = 0; j < kScanValues; ++j) {
        const int k = j * kDistanceLanes + part;
        values[j] = real && k < size ? scan_value<kBytes>(columns.values, base + k) : Value(0);
      }
#pragma unroll
      for (int r = 0; r < kScanRows; ++r) {
        if (r >= listed)
          break;
        Value sum = 0;
#pragma unroll
        for (int j = 0; j < kScanValues; ++j) {
          if (j * kDistanceLanes + part < size) {
            const Value d = query[r][j] - values[j];
            sum = sum + d * d;
          }
        }
        sum = sum + __shfl_xor_sync(kFullMask, sum, 4);
        sum = sum + __shfl_xor_sync(kFullMask, sum, 2);
        sum = sum + __shfl_xor_sync(kFullMask, sum, 1);
        if (real)
          offer(static_cast<float>(sum), column, &nearest[r]);
      }
    }

#pragma unroll
    for (int r = 0; r < kScanRows; ++r) {
      if (r >= listed)
        break;
      merge_in_warp(&nearest[r], kDistanceLanes);
      if (lane == 0)
        warp_nearest[r][warp] = nearest[r];
    }
    __syncthreads();
    if (static_cast<int>(threadIdx.x) < listed) {
      TwoNearest mine = warp_nearest[threadIdx.x][0];
      for (int w = 1; w < kScanWarps; ++w) {
        const TwoNearest& other = warp_nearest[threadIdx.x][w];
        if (other.best.index >= 0)
          offer(other.best.distance_sq, other.best.index, &mine);
        if (other.second.index >= 0)
          offer(other.second.distance_sq, other.second.index, &mine);
      }
      chunk_nearest[static_cast<size_t>(first + threadIdx.x) * chunks + chunk] = mine;
    }
    __syncthreads();
  }
}

// A warp per listed row merges its chunks' two nearest; the order of neighbours is total, so the
// merge order does not change the result.
// A block per listed row merges its chunks' two nearest; the order of neighbours is total, so the
// merge order does not change the result.
__global__ void merge_chunks_kernel(const int* list, const int* count_on_device, int column_count,
                                    long long capacity, const TwoNearest* chunk_nearest,
                                    TwoNearest* nearest) {
  __shared__ TwoNearest warp_nearest[kMergeThreads / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int count = *count_on_device;
  const int chunks = scan_chunks(count, column_count, capacity);
  for (int k = blockIdx.x; k < count; k += gridDim.x) {
    TwoNearest mine = no_neighbours();
    for (int c = threadIdx.x; c < chunks; c += kMergeThreads) {
      const TwoNearest& chunk = chunk_nearest[static_cast<size_t>(k) * chunks + c];
      if (chunk.best.index >= 0)
        offer(chunk.best.distance_sq, chunk.best.index, &mine);
      if (chunk.second.index >= 0)
        offer(chunk.second.distance_sq, chunk.second.index, &mine);
    }
    merge_in_warp(&mine);
    if (lane == 0)
      warp_nearest[warp] = mine;
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int w = 1; w < kMergeThreads / 32; ++w) {
        if (warp_nearest[w].best.index >= 0)
          offer(warp_nearest[w].best.distance_sq, warp_nearest[w].best.index, &mine);
        if (warp_nearest[w].second.index >= 0)
          offer(warp_nearest[w].second.distance_sq, warp_nearest[w].second.index, &mine);
      }
      nearest[list[k]] = mine;
    }
    __syncthreads();
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
                              Decision* decisions, unsigned long long* nearest_query_of_train) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0)
    *header = *scalars;
  if (i >= query_count)
    return;
  const TwoNearest n = forward[i];
  bool keep = passes_ratio_test(n, ratio);
  if (keep && cross_check)
    keep = backward[n.best.index].best.index == i;
  const Decision d{keep ? n.best.index : -1, keep ? sqrt_rn(n.best.distance_sq) : 0.f};
  decisions[i] = d;
  if (keep && nearest_query_of_train)
    atomicMin(&nearest_query_of_train[d.train], nearest_query_key(d, i));
}

// The caller reserves chunk_nearest for max(query count, train count) * kScanChunks entries; at
// most rows.count rows are listed, whatever their count on the device turns out to be.
template <bool kBytes>
void launch_exhaustive(const StagedSet& rows, const StagedSet& columns, const int* list,
                       const int* count, TwoNearest* chunk_nearest, TwoNearest* nearest,
                       cudaStream_t stream) {
  const long long capacity =
      static_cast<long long>(std::max(rows.count, columns.count)) * kScanChunks;
  const long long passes = std::max((columns.count + kScanGroups - 1) / kScanGroups, 1);
  const long long most_items = (rows.count + kScanRows - 1) / kScanRows * passes;
  const int blocks = static_cast<int>(std::clamp<long long>(most_items, 1, kScanItems));
  exhaustive_chunk_kernel<kBytes>
      <<<blocks, kScanThreads, 0, stream>>>(rows, columns, list, count, capacity, chunk_nearest);
  check_launch("exhaustive nearest-neighbour scan");
  const int merge_blocks = std::clamp(rows.count, 1, kMergeBlocks);
  merge_chunks_kernel<<<merge_blocks, kMergeThreads, 0, stream>>>(list, count, columns.count,
                                                                  capacity, chunk_nearest, nearest);
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
                    MatchScalars* header, Decision* decisions,
                    unsigned long long* nearest_query_of_train, cudaStream_t stream) {
  decide_kernel<<<(query_count + 255) / 256, 256, 0, stream>>>(forward, backward, query_count,
                                                               ratio, cross_check, scalars, header,
                                                               decisions, nearest_query_of_train);
  check_launch("decide matches");
}

}  // namespace gpusift::cuda
