// The canonical order and duplicate removal of the CPU's sort_and_deduplicate, from keypoints
// already sorted by position: only keypoints of equal (x, y), a handful at most, still need
// ordering among themselves, and each finds its rank by comparing with the others.
#include <cub/device/device_select.cuh>

#include "cuda_check.h"
#include "surf_kernels.h"

namespace gpusift::cuda {

namespace {

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

__global__ void place_kernel(const Keypoint* keypoints, const SurfCandidate* candidates,
                             const uint64_t* keys, const uint32_t* order, int n, Keypoint* placed,
                             uint8_t* keep) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const uint64_t key = keys[i];
  const Keypoint k = keypoints[order[i]];
  if (key == kSurfDroppedKey) {
    placed[i] = k;
    keep[i] = 0;
    return;
  }
  int begin = i, end = i + 1;
  while (begin > 0 && keys[begin - 1] == key)
    --begin;
  while (end < n && keys[end] == key)
    ++end;
  const uint64_t location = candidates[order[i]].location;
  int rank = begin;
  bool duplicate = false;
  for (int j = begin; j < end; ++j) {
    if (j == i)
      continue;
    const Keypoint other = keypoints[order[j]];
    if (canonical_before(other, candidates[order[j]].location, k, location)) {
      ++rank;
      duplicate = duplicate || keypoint_same_feature(other, k);
    }
  }
  placed[rank] = k;
  keep[rank] = duplicate ? 0 : 1;
}

}  // namespace

void place_canonically(const Keypoint* keypoints, const SurfCandidate* candidates,
                       const uint64_t* sorted_keys, const uint32_t* sorted_indices, int n,
                       Keypoint* placed, uint8_t* keep, cudaStream_t stream) {
  if (n == 0)
    return;
  const int threads = 256;
  place_kernel<<<(n + threads - 1) / threads, threads, 0, stream>>>(
      keypoints, candidates, sorted_keys, sorted_indices, n, placed, keep);
  check_launch("place_kernel");
}

void select_kept(void* scratch, size_t scratch_bytes, const Keypoint* in, const uint8_t* keep,
                 int n, Keypoint* out, int* count, cudaStream_t stream) {
  size_t bytes = scratch_bytes;
  check(cub::DeviceSelect::Flagged(scratch, bytes, in, keep, out, count, n, stream),
        "cub::DeviceSelect::Flagged");
}

}  // namespace gpusift::cuda
