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

template <typename T>
GPUSIFT_HD T min_of(T a, T b) {
  return a < b ? a : b;
}
template <typename T>
GPUSIFT_HD T max_of(T a, T b) {
  return a > b ? a : b;
}

}  // namespace gpusift
