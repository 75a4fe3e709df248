// SPDX-License-Identifier: LGPL-2.1-or-later
// Marks functions that both the CPU backend (g++) and the CUDA kernels (nvcc) compile.
#pragma once

#if defined(__CUDACC__)
#define GPUSIFT_HD __host__ __device__ __forceinline__
#else
#define GPUSIFT_HD inline
#endif

#include <cmath>

namespace gpusift {

// OpenCV's cvRound: round half to even in the default floating-point mode.
GPUSIFT_HD int round_to_int(float value) {
  return static_cast<int>(rintf(value));
}
GPUSIFT_HD int round_to_int(double value) {
  return static_cast<int>(rint(value));
}
GPUSIFT_HD int floor_to_int(float value) {
  return static_cast<int>(floorf(value));
}

// sqrtf rounded to nearest on every compiler: nvcc's sqrtf is (-prec-sqrt=true, its default), but
// clang's CUDA sqrtf is the approximate instruction (libdevice asks for __CUDA_PREC_SQRT, which
// clang 16 never sets), and the matcher's distances must equal the CPU's bit for bit.
GPUSIFT_HD float sqrt_rn(float value) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(value);
#else
  return sqrtf(value);
#endif
}

template <typename T>
GPUSIFT_HD T min_of(T a, T b) {
  return a < b ? a : b;
}
template <typename T>
GPUSIFT_HD T max_of(T a, T b) {
  return a > b ? a : b;
}

}  // namespace gpusift
