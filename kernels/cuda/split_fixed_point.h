// SPDX-License-Identifier: LGPL-2.1-or-later
// The 64-bit fixed-point sums of fixed_point.h kept in shared memory as two 32-bit words, so that
// they take the native 32-bit shared-memory atomics (a 64-bit shared atomic add is a
// compare-and-swap loop, which serialises badly when lanes hit one bin). The carry out of the low
// word goes to the high word, so the pair holds exactly the 64-bit sum (mod 2^64, as the 64-bit
// atomics did) whatever the order of the additions.
#pragma once

#include "fixed_point.h"

namespace gpusift::cuda {

// The integer that add_fixed_point(bin, value) adds.
__device__ __forceinline__ unsigned long long to_fixed_point(float value) {
  return __float2ull_rn(value * kFixedPointScale);
}

__device__ __forceinline__ void add_split_fixed_point(unsigned* low, unsigned* high,
                                                      unsigned long long addend) {
  const unsigned add_low = static_cast<unsigned>(addend);
  unsigned add_high = static_cast<unsigned>(addend >> 32);
  if (add_low != 0) {
    const unsigned old = atomicAdd(low, add_low);
    add_high += old + add_low < old ? 1u : 0u;  // the low word wrapped
  }
  if (add_high != 0)
    atomicAdd(high, add_high);
}

__device__ __forceinline__ unsigned long long split_fixed_point_sum(unsigned low, unsigned high) {
  return (static_cast<unsigned long long>(high) << 32) | low;
}

// The same sums without the carry, for histograms whose bins take fewer than 2^15 additions
// (window_fits_halves) of addends below 2^33 (fixed_point.h's values up to 512): the
// low word adds the addends' low 16 bits, the high word the rest, and neither can wrap. Neither
// add waits for the other's result, which add_split_fixed_point's carry must.
constexpr int kHalvesShift = 16;

__device__ __forceinline__ void add_fixed_point_halves(unsigned* low, unsigned* high,
                                                       unsigned long long addend) {
  atomicAdd(low, static_cast<unsigned>(addend & ((1u << kHalvesShift) - 1)));
  atomicAdd(high, static_cast<unsigned>(addend >> kHalvesShift));
}

__device__ __forceinline__ unsigned long long fixed_point_halves_sum(unsigned low, unsigned high) {
  return (static_cast<unsigned long long>(high) << kHalvesShift) + low;
}

}  // namespace gpusift::cuda
