// SPDX-License-Identifier: LGPL-2.1-or-later
// The first half of RANSAC's ending, one definition for the CPU backend and the CUDA kernel: the
// winning hypothesis' inliers, its MSAC cost and the least-squares sums over its inliers. Sums
// are taken in one fixed order, whichever backend runs them: pair i goes to lane
// i % kWinnerLanes (in pair order within a lane); the lanes form kWinnerBlocks blocks, each
// summed by a tree (add_lanes_in_winner_order), and the blocks are added in order. So both
// backends hand the host the same bits, and the refit that follows (ransac.cpp) is the same too.
#pragma once

#include <cstdint>

#include "gpusift/hostdevice.h"
#include "gpusift/match_types.h"
#include "gpusift/motion_models.h"
#include "gpusift/motion_sampling.h"

namespace gpusift {

// The GPU's blocks and threads: a lane per thread.
inline constexpr int kWinnerBlocks = 8;
inline constexpr int kWinnerThreads = 128;
inline constexpr int kWinnerLanes = kWinnerBlocks * kWinnerThreads;

// One step of a block's tree: lane t (t < stride) takes in lane t + stride; strides
// kWinnerThreads / 2, ..., 2, 1 leave the block's sum in its first lane.
GPUSIFT_HD void add_tree_step(double* block_lanes, int t, int stride) {
  block_lanes[t] = block_lanes[t] + block_lanes[t + stride];
}
// The least-squares sums: relative products [xx, xy, x, yy, y, 1] times the weights [1, u, v,
// u^2 + v^2], at [product * 4 + weight].
inline constexpr int kMotionSumCount = 24;

// What the winner's scoring hands to the refit.
struct RansacWinner {
  double h[9];          // the hypothesis as the search scored it
  double reference[4];  // the mean of its minimal sample: from x, y, to x, y
  double sums[kMotionSumCount];
  double cost;  // MSAC: squared reprojection errors, each capped at the threshold's square
  int inliers;
  int found;  // 0: no usable hypothesis, or fewer inliers than a minimal sample
};

// The squared reprojection error of `pair` capped at threshold_sq (NaN, from w = 0, counts as
// the threshold).
GPUSIFT_HD double capped_reprojection_error(const double* h, const PointPair& pair,
                                            double threshold_sq) {
  const double x = pair.from_x, y = pair.from_y;
  const double w = (h[6] * x + h[7] * y) + h[8];
  const double ex = ((h[0] * x + h[1] * y) + h[2]) - pair.to_x * w;
  const double ey = ((h[3] * x + h[4] * y) + h[5]) - pair.to_y * w;
  const double e = (ex * ex + ey * ey) / (w * w);
  return e < threshold_sq ? e : threshold_sq;
}

GPUSIFT_HD void add_motion_products(const PointPair& pair, const double* reference, double* sums) {
  const double x = pair.from_x - reference[0], y = pair.from_y - reference[1];
  const double u = pair.to_x - reference[2], v = pair.to_y - reference[3];
  const double weights[4] = {1.0, u, v, u * u + v * v};
  const double products[6] = {x * x, x * y, x, y * y, y, 1.0};
  for (int k = 0; k < 6; ++k)
    for (int w = 0; w < 4; ++w)
      sums[k * 4 + w] = sums[k * 4 + w] + weights[w] * products[k];
}

// The mean of hypothesis `iteration`'s minimal sample: a reference point inside the data, about
// which the sums are well conditioned. False when the sample cannot be drawn.
GPUSIFT_HD bool minimal_sample_mean(const PointPair* pairs, int count, MotionModel model,
                                    uint64_t seed, int iteration, double* reference) {
  const int size = minimal_sample_size(model);
  int indices[kMaxMinimalSample];
  if (size == 0 || count < size || !draw_minimal_sample(seed, iteration, size, count, indices))
    return false;
  double fx = 0, fy = 0, tx = 0, ty = 0;
  for (int i = 0; i < size; ++i) {
    const PointPair& p = pairs[indices[i]];
    fx += p.from_x, fy += p.from_y, tx += p.to_x, ty += p.to_y;
  }
  reference[0] = fx / size, reference[1] = fy / size;
  reference[2] = tx / size, reference[3] = ty / size;
  return true;
}

// One lane's share of the winner's score: pairs lane, lane + kWinnerLanes, ... in order.
struct WinnerLane {
  double cost = 0;
  double sums[kMotionSumCount] = {};
  int inliers = 0;
};

// Scores pair `i` into `lane` and returns whether it is an inlier (is_inlier's test).
GPUSIFT_HD bool score_into_lane(const double* h, const PointPair& pair, const double* reference,
                                double threshold_sq, WinnerLane* lane) {
  const bool inlier = is_inlier(h, pair, threshold_sq);
  lane->cost = lane->cost + capped_reprojection_error(h, pair, threshold_sq);
  if (inlier) {
    lane->inliers += 1;
    add_motion_products(pair, reference, lane->sums);
  }
  return inlier;
}

}  // namespace gpusift
