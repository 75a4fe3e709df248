// Least-squares fits of the motion models to many point pairs: the refinement step of RANSAC,
// run on the host by both backends (so its result is the same whichever found the inliers).
#pragma once

#include <cstdint>
#include <vector>

#include "gpusift/match_types.h"

namespace gpusift {

// Fits `model` to the pairs whose mask entry is non-zero and writes the row-major 3x3 matrix to
// h (last row 0 0 1 for the affine models, h[8] = 1 for homographies where possible). False
// when those pairs are too few or degenerate for the model.
bool fit_motion(MotionModel model, const std::vector<PointPair>& pairs,
                const std::vector<uint8_t>& mask, double* h);

}  // namespace gpusift
