// SPDX-License-Identifier: LGPL-2.1-or-later
// The per-pair math of descriptor matching, one definition for the CPU backend and the CUDA
// kernels: squared L2 distances in one fixed order of float operations, the order of neighbours
// and Lowe's ratio test. Both backends rank with these functions, so they agree bit for bit.
#pragma once

#include <cstdint>

#include "gpusift/hostdevice.h"

namespace gpusift {

// Partial sums of the float distance: value k goes into sum k % 8.
inline constexpr int kDistanceLanes = 8;

GPUSIFT_HD float combine_distance_lanes(const float* sums) {
  return ((sums[0] + sums[4]) + (sums[2] + sums[6])) + ((sums[1] + sums[5]) + (sums[3] + sums[7]));
}

// Squared L2 distance of two float rows of `size` values: eight interleaved sums of (a - b)^2,
// each accumulated in index order, combined as above. Every operation is rounded on its own (no
// fused multiply-add) on the host and on the device; eight lanes let the CPU use vectors.
GPUSIFT_HD float squared_distance(const float* a, const float* b, int size) {
  float sums[kDistanceLanes] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
  const int whole = size / kDistanceLanes * kDistanceLanes;
  for (int k = 0; k < whole; k += kDistanceLanes) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int lane = 0; lane < kDistanceLanes; ++lane) {
      const float d = a[k + lane] - b[k + lane];
      sums[lane] = sums[lane] + d * d;
    }
  }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int lane = 0; lane < kDistanceLanes; ++lane) {
    if (whole + lane < size) {
      const float d = a[whole + lane] - b[whole + lane];
      sums[lane] = sums[lane] + d * d;
    }
  }
  return combine_distance_lanes(sums);
}

// Squared L2 distance of two byte rows: an exact integer (at most 128 * 255^2 < 2^24), so
// exact as a float too.
GPUSIFT_HD float squared_distance(const uint8_t* a, const uint8_t* b, int size) {
  int32_t sum = 0;
  for (int k = 0; k < size; ++k) {
    const int32_t d = static_cast<int32_t>(a[k]) - static_cast<int32_t>(b[k]);
    sum += d * d;
  }
  return static_cast<float>(sum);
}

// A candidate neighbour; index -1 is none (infinitely far).
struct Neighbour {
  float distance_sq;
  int32_t index;
};

// The total order of neighbours: by squared distance, then by lower index. NaN distances (and
// infinite ones) never come before the empty neighbour, so such rows never match.
GPUSIFT_HD bool nearer(float distance_sq, int32_t index, const Neighbour& than) {
  return distance_sq < than.distance_sq || (distance_sq == than.distance_sq && index < than.index);
}

struct TwoNearest {
  Neighbour best;
  Neighbour second;
};

GPUSIFT_HD TwoNearest no_neighbours() {
  return TwoNearest{{INFINITY, -1}, {INFINITY, -1}};
}

// Takes one candidate; the result does not depend on the order candidates come in.
GPUSIFT_HD void offer(float distance_sq, int32_t index, TwoNearest* nearest) {
  if (nearer(distance_sq, index, nearest->best)) {
    nearest->second = nearest->best;
    nearest->best = Neighbour{distance_sq, index};
  } else if (nearer(distance_sq, index, nearest->second)) {
    nearest->second = Neighbour{distance_sq, index};
  }
}

// Lowe's test on L2 distances, as OpenCV users write it (m.distance < ratio * n.distance). A
// missing second neighbour is infinitely far.
GPUSIFT_HD bool passes_ratio_test(const TwoNearest& nearest, float ratio) {
  if (nearest.best.index < 0)
    return false;
  if (nearest.second.index < 0)
    return true;
  return sqrt_rn(nearest.best.distance_sq) < ratio * sqrt_rn(nearest.second.distance_sq);
}

}  // namespace gpusift
