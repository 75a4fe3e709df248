// SPDX-License-Identifier: LGPL-2.1-or-later
// The canonical order and duplicate removal of the CPU's sort_and_deduplicate without a sort:
// the order compares x first, so binning keypoints by their pixel column orders them up to the
// few that share a column, and each of those finds its rank by comparing with the others. Every
// count stays on the device, so nothing here waits for the host.
#include <algorithm>
#include <cub/block/block_scan.cuh>

#include "cuda_check.h"
#include "surf_kernels.h"

namespace gpusift::cuda {

namespace {

constexpr int kScanThreads = 1024;
constexpr int kThreads = 256;

// keypoint_canonical_less, then the candidate's unique location for keypoints equal in every
// compared field, so that the order is total and the same on every run.
__device__ bool canonical_before(const Keypoint& a, uint64_t a_location, const Keypoint& b,
                                 uint64_t b_location) {
  if (keypoint_canonical_less(a, b))
    return true;
  if (keypoint_canonical_less(b, a))
    return false;
  return a_location < b_location;
}

// starts[b] = counts[0] + ... + counts[b - 1] for b in [0, bins], in one block; the counts are
// left at zero, and *total (when given) = starts[bins].
__global__ void scan_bins_kernel(int* counts, int bins, int* starts, int* total) {
  using Scan = cub::BlockScan<int, kScanThreads>;
  __shared__ typename Scan::TempStorage scan_storage;
  __shared__ int carried;
  if (threadIdx.x == 0)
    carried = 0;
  __syncthreads();
  for (int base = 0; base < bins; base += kScanThreads) {
    const int b = base + threadIdx.x;
    const int count = b < bins ? counts[b] : 0;
    int before = 0, chunk_total = 0;
    Scan(scan_storage).ExclusiveSum(count, before, chunk_total);
    if (b < bins) {
      starts[b] = carried + before;
      counts[b] = 0;
    }
    __syncthreads();
    if (threadIdx.x == 0)
      carried += chunk_total;
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    starts[bins] = carried;
    if (total)
      *total = carried;
  }
}

// Candidates to the slots of their bins, in any order within a bin; bin_counts, zero on entry,
// end as the bins' sizes.
__global__ void scatter_kernel(const int* candidate_count, int capacity, SurfOrderWork work) {
  const int n = min(*candidate_count, capacity);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int b = work.candidate_bins[i];
    if (b >= 0)
      work.binned[work.bin_starts[b] + atomicAdd(&work.bin_counts[b], 1)] = i;
  }
}

// Each binned candidate to its rank among its bin's, flagged when a canonically earlier keypoint
// of the bin is the same feature; bin_counts end as the bins' kept counts.
__global__ void rank_kernel(const Keypoint* keypoints, const SurfCandidate* candidates,
                            SurfOrderWork work) {
  const int binned_total = work.bin_starts[work.bins];
  for (int s = blockIdx.x * blockDim.x + threadIdx.x; s < binned_total;
       s += gridDim.x * blockDim.x) {
    const uint32_t i = work.binned[s];
    const int b = work.candidate_bins[i];
    const int begin = work.bin_starts[b], end = work.bin_starts[b + 1];
    const Keypoint k = keypoints[i];
    const uint64_t location = candidates[i].location;
    int rank = 0;
    bool duplicate = false;
    for (int t = begin; t < end; ++t) {
      const uint32_t j = work.binned[t];
      if (j == i)
        continue;
      const Keypoint other = keypoints[j];
      if (canonical_before(other, candidates[j].location, k, location)) {
        ++rank;
        duplicate = duplicate || keypoint_same_feature(other, k);
      }
    }
    work.ranked[begin + rank] = i;
    work.keep[begin + rank] = duplicate ? 0 : 1;
    if (duplicate)
      atomicSub(&work.bin_counts[b], 1);
  }
}

__global__ void write_kernel(const Keypoint* keypoints, SurfOrderWork work, Keypoint* out) {
  const int binned_total = work.bin_starts[work.bins];
  for (int s = blockIdx.x * blockDim.x + threadIdx.x; s < binned_total;
       s += gridDim.x * blockDim.x) {
    if (!work.keep[s])
      continue;
    const uint32_t i = work.ranked[s];
    const int b = work.candidate_bins[i];
    int kept_before = 0;
    for (int t = work.bin_starts[b]; t < s; ++t)
      kept_before += work.keep[t];
    out[work.kept_starts[b] + kept_before] = keypoints[i];
  }
}

// out[0..*count) to pinned host memory, a 4-byte word per thread: consecutive threads write
// consecutive words, which PCIe carries in whole lines rather than in 28-byte pieces.
__global__ void copy_to_host_kernel(const Keypoint* out, const int* count, uint32_t* host_out) {
  static_assert(sizeof(Keypoint) % sizeof(uint32_t) == 0, "keypoints are whole words");
  const int words = *count * static_cast<int>(sizeof(Keypoint) / sizeof(uint32_t));
  const auto* from = reinterpret_cast<const uint32_t*>(out);
  for (int w = blockIdx.x * blockDim.x + threadIdx.x; w < words; w += gridDim.x * blockDim.x)
    host_out[w] = from[w];
}

int blocks_for(int capacity) {
  return std::min((capacity + kThreads - 1) / kThreads, kSurfMaxGridBlocks);
}

}  // namespace

void order_surf_keypoints(const Keypoint* keypoints, const SurfCandidate* candidates,
                          const int* candidate_count, int capacity, const SurfOrderWork& work,
                          Keypoint* out, Keypoint* host_out, int* out_count, cudaStream_t stream) {
  scan_bins_kernel<<<1, kScanThreads, 0, stream>>>(work.bin_counts, work.bins, work.bin_starts,
                                                   nullptr);
  check_launch("scan_bins_kernel");
  scatter_kernel<<<blocks_for(capacity), kThreads, 0, stream>>>(candidate_count, capacity, work);
  check_launch("scatter_kernel");
  rank_kernel<<<blocks_for(capacity), kThreads, 0, stream>>>(keypoints, candidates, work);
  check_launch("rank_kernel");
  scan_bins_kernel<<<1, kScanThreads, 0, stream>>>(work.bin_counts, work.bins, work.kept_starts,
                                                   out_count);
  check_launch("scan_bins_kernel");
  write_kernel<<<blocks_for(capacity), kThreads, 0, stream>>>(keypoints, work, out);
  check_launch("write_kernel");
  copy_to_host_kernel<<<blocks_for(capacity), kThreads, 0, stream>>>(
      out, out_count, reinterpret_cast<uint32_t*>(host_out));
  check_launch("copy_to_host_kernel");
}

}  // namespace gpusift::cuda
