// SPDX-License-Identifier: LGPL-2.1-or-later
// The host side of a match-and-fit job shared by both backends: its argument checks, the
// one-query-per-train selection and the pairs of the matches. The CPU backend composes the whole
// job from these; the CUDA matcher runs the same selection on the device and rebuilds the pairs
// here.
#pragma once

#include <vector>

#include "gpusift/match_types.h"

namespace gpusift {

// Throws gpusift::Error(kInvalidArgument): validate_match_inputs's reasons, missing points for
// rows, and RANSAC parameters that validate(RansacParams) refuses.
void validate_match_and_fit(const MatchAndFitRequest& request);

// Keeps, for every train row, only its nearest query (ties: the lowest query); keeps the order
// by query. The CUDA matcher's selection gives the same.
void keep_nearest_query_per_train(std::vector<Match>* matches, int train_count);

// pairs[k] = the points of matches[k], query onto train (or train onto query).
void pairs_of_matches(const std::vector<Match>& matches, const PointXY* query_points,
                      const PointXY* train_points, bool from_train, std::vector<PointPair>* pairs);

}  // namespace gpusift
