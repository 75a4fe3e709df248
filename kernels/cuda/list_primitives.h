// SPDX-License-Identifier: LGPL-2.1-or-later
// Sorting, scanning and selection over device lists (CUB), with caller-owned scratch so that
// nothing is allocated per frame.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "gpusift/keypoint.h"

namespace gpusift::cuda {

// Scratch needed by every primitive below for lists of up to `capacity` items.
size_t list_scratch_bytes(int capacity);

struct Scratch {
  void* data;
  size_t bytes;
};

// Stable sort of n pairs by the keys' bits [0, key_bits).
void sort_by_key(const Scratch& scratch, const uint64_t* keys_in, uint64_t* keys_out,
                 const uint32_t* values_in, uint32_t* values_out, int n, int key_bits,
                 cudaStream_t stream);

// sort_by_key for a list whose items from min(*count, n) on are a padded tail: already in order
// and above every earlier key. Its cost grows with the count rather than with n.
void sort_padded_by_key(const Scratch& scratch, const uint64_t* keys_in, uint64_t* keys_out,
                        const uint32_t* values_in, uint32_t* values_out, const int* count, int n,
                        int key_bits, cudaStream_t stream);

// out[i] = sum of in[0..i), for n items.
void exclusive_sum(const Scratch& scratch, const int* in, int* out, int n, cudaStream_t stream);

// Work lists for keep_strongest, each of `capacity` items.
struct StrongestWork {
  float* responses;
  float* responses_sorted;
  uint32_t* order;
  uint32_t* order_sorted;
  uint8_t* keep;
  int* kept_count;
};

// Copies to `out`, in their original order, the `limit` keypoints of largest response; ties go to
// the earlier keypoint, so the choice is deterministic.
void keep_strongest(const Scratch& scratch, const StrongestWork& work, const Keypoint* in, int n,
                    int limit, Keypoint* out, cudaStream_t stream);

// keep_strongest for a count on the device: the keypoints in[0..min(*count, capacity)), the work
// lists of `capacity` items, the number kept (min(count, limit)) to work.kept_count.
void keep_strongest_counted_on_device(const Scratch& scratch, const StrongestWork& work,
                                      const Keypoint* in, const int* count, int capacity, int limit,
                                      Keypoint* out, cudaStream_t stream);

}  // namespace gpusift::cuda
