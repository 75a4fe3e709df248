// SPDX-License-Identifier: LGPL-2.1-or-later
// RANSAC's minimal samples, drawn by a counter-based hash of (seed, iteration, slot, attempt):
// any hypothesis can be drawn on its own, in any order, by the CPU or a GPU thread, and every
// drawer gets the same indices.
#pragma once

#include <cstdint>

#include "gpusift/hostdevice.h"

namespace gpusift {

inline constexpr int kMaxMinimalSample = 4;
// A slot redraws while its index repeats an earlier slot's; past this many tries the sample is
// given up (only likely when there are barely more pairs than the sample needs).
inline constexpr int kSampleDrawAttempts = 32;

// Vigna's SplitMix64 finaliser.
GPUSIFT_HD uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// An index in [0, count) from a 64-bit hash, by the high bits (no modulo bias to speak of).
GPUSIFT_HD int hash_to_index(uint64_t hash, int count) {
  return static_cast<int>(((hash >> 32) * static_cast<uint64_t>(count)) >> 32);
}

// Fills indices[0..sample_size) with distinct indices into `pair_count` pairs for hypothesis
// `iteration`; false when no distinct draw was found.
GPUSIFT_HD bool draw_minimal_sample(uint64_t seed, int iteration, int sample_size, int pair_count,
                                    int* indices) {
  for (int slot = 0; slot < sample_size; ++slot) {
    bool drawn = false;
    for (int attempt = 0; attempt < kSampleDrawAttempts && !drawn; ++attempt) {
      const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(iteration)) << 16) |
                           (static_cast<uint64_t>(attempt) << 3) | static_cast<uint64_t>(slot);
      const int index = hash_to_index(splitmix64(seed ^ splitmix64(key)), pair_count);
      drawn = true;
      for (int earlier = 0; earlier < slot; ++earlier)
        drawn = drawn && indices[earlier] != index;
      if (drawn)
        indices[slot] = index;
    }
    if (!drawn)
      return false;
  }
  return true;
}

}  // namespace gpusift
