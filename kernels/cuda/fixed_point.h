// SPDX-License-Identifier: LGPL-2.1-or-later
// Histogram sums in 64-bit fixed point: integer addition is associative, so atomics from any
// number of threads give the same bits every run, unlike float atomics.
#pragma once

namespace gpusift::cuda {

constexpr float kFixedPointScale = 16777216.f;  // 2^24: ~6e-8 resolution, sums up to ~1e11

__device__ __forceinline__ void add_fixed_point(unsigned long long* bin, float value) {
  atomicAdd(bin, __float2ull_rn(value * kFixedPointScale));
}

__device__ __forceinline__ float from_fixed_point(unsigned long long sum) {
  return static_cast<float>(static_cast<double>(sum) / kFixedPointScale);
}

}  // namespace gpusift::cuda
