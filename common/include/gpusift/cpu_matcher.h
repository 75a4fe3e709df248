// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend of descriptor matching and RANSAC: the oracle for the CUDA matcher, which
// gives the same results bit for bit. Exhaustive: every query row against every train row with
// the shared distance (gpusift/match_distance.h), OpenMP-parallel over query rows; the result
// does not depend on the thread count. One call at a time per instance.
#pragma once

#include <cstdint>
#include <vector>

#include "gpusift/match_distance.h"
#include "gpusift/match_types.h"

namespace gpusift {

class CpuMatcher {
 public:
  // See gpusift::Matcher::match; host memory only (kInvalidArgument for device memory).
  void match(const DescriptorSetView& query, const DescriptorSetView& train,
             const MatchParams& params, std::vector<Match>* out);
  // See gpusift::Matcher::estimate_motion.
  MotionEstimate estimate_motion(const std::vector<PointPair>& pairs, const RansacParams& params);
  // See gpusift::Matcher::begin_match_and_fit: the whole job, at once.
  void match_and_fit(const MatchAndFitRequest& request, MatchAndFitResult* out);

  // The two nearest train rows of every query row (ranked as the matcher ranks), for tests and
  // callers that want their own decision.
  void nearest_two(const DescriptorSetView& query, const DescriptorSetView& train,
                   std::vector<TwoNearest>* out);

 private:
  std::vector<TwoNearest> nearest_;
  std::vector<int32_t> nearest_query_of_train_;
};

}  // namespace gpusift
