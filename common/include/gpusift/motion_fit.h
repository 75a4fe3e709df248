// SPDX-License-Identifier: LGPL-2.1-or-later
// Least-squares fits of the motion models to many point pairs: the refinement step of RANSAC,
// run on the host by both backends (so its result is the same whichever found the inliers).
#pragma once

#include <cstdint>
#include <vector>

#include "gpusift/match_types.h"

namespace gpusift {

// The sums every model's fit needs, over pairs taken relative to a reference point pair near the
// data (for conditioning). One pass of add() over the pairs, then solve() for any model.
class MotionSums {
 public:
  MotionSums(double from_x, double from_y, double to_x, double to_y);
  // Sums taken elsewhere (gpusift/ransac_winner.h's layout) about reference[0..4).
  MotionSums(const double* reference, const double* sums);

  // Adds the relative products of the pairs [xx, xy, x, yy, y, 1] times the weights [1, u, v,
  // u^2 + v^2]. Each of the 24 sums is one accumulation in pair order, so the result does not
  // depend on how the compiler vectorises it.
  void add(const PointPair& pair) { add(&pair, 1); }
  void add(const PointPair* pairs, size_t count);
  void add(const std::vector<PointPair>& pairs, const std::vector<uint32_t>& indices);
  // Writes the row-major 3x3 matrix of the least-squares `model` (last row 0 0 1 for the affine
  // models, h[8] = 1 for homographies); false when the pairs are too few or degenerate for it.
  bool solve(MotionModel model, double* h) const;

 private:
  double from_x_, from_y_, to_x_, to_y_;
  double sums_[6][4] = {};  // [product][weight]
};

// The fit to the pairs whose mask entry is non-zero (relative to their centroid).
bool fit_motion(MotionModel model, const std::vector<PointPair>& pairs,
                const std::vector<uint8_t>& mask, double* h);

}  // namespace gpusift
