// SPDX-License-Identifier: LGPL-2.1-or-later
// The host side of RANSAC shared by both backends: argument checks, the CPU's hypothesis search
// and the ending both backends run on the best hypothesis (inliers, least-squares refit).
#pragma once

#include <cstdint>
#include <vector>

#include "gpusift/keypoint.h"
#include "gpusift/match_types.h"
#include "gpusift/ransac_winner.h"

namespace gpusift {

// Throws gpusift::Error(kInvalidArgument) for a negative iteration count or a threshold that is
// not a positive finite number.
void validate(const RansacParams& params);

// Whether RANSAC can run at all: a model with a minimal sample, at least that many pairs and at
// least one iteration. Otherwise the estimate is "not found" without any work.
bool ransac_can_run(size_t pair_count, const RansacParams& params);

// Ranks hypotheses: more inliers first, then the lower iteration. inliers < 0: degenerate.
struct HypothesisScore {
  int iteration = -1;
  int inliers = -1;
};
inline bool better(const HypothesisScore& a, const HypothesisScore& b) {
  return a.inliers > b.inliers || (a.inliers == b.inliers && a.iteration < b.iteration);
}

// Inliers of the row-major 3x3 `h` among `pairs`; fills `mask` (one per pair) when given.
int count_inliers(const double* h, const std::vector<PointPair>& pairs, double threshold_sq,
                  std::vector<uint8_t>* mask);

// The CPU's search: every hypothesis scored, OpenMP-parallel; iteration -1 when none is usable.
HypothesisScore best_hypothesis_on_cpu(const std::vector<PointPair>& pairs,
                                       const RansacParams& params);

// The estimate from the search's winner: its inliers, refitted by least squares on them (kept
// only when that lowers the MSAC cost), the final inliers and mask. Not found when `best` has no
// usable hypothesis or fewer inliers than a minimal sample. Runs the two halves below.
MotionEstimate finish_motion_estimate(const std::vector<PointPair>& pairs,
                                      const RansacParams& params, const HypothesisScore& best);

// The first half on the CPU: the winner's score and sums (the CUDA matcher computes the same
// bits on the device); `mask` gets the winner's inliers.
RansacWinner score_winner_on_cpu(const std::vector<PointPair>& pairs, const RansacParams& params,
                                 const HypothesisScore& best, std::vector<uint8_t>* mask);

// The second half, on the host for both backends: the refit and the final inliers. `mask` is
// the winner's.
MotionEstimate complete_motion_estimate(const std::vector<PointPair>& pairs,
                                        const RansacParams& params, const RansacWinner& winner,
                                        std::vector<uint8_t> mask);

// pairs[i] = (query keypoint of matches[i], its train keypoint): the motion from the query
// frame to the train frame. Reuses out's storage.
void point_pairs_from_matches(const std::vector<Match>& matches,
                              const std::vector<Keypoint>& query_keypoints,
                              const std::vector<Keypoint>& train_keypoints,
                              std::vector<PointPair>* out);

}  // namespace gpusift
