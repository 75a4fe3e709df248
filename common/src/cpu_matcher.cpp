// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/cpu_matcher.h"
#include "cpu_isa.h"

#include <cstddef>
#include <string>

#include "gpusift/error.h"
#include "gpusift/match_and_fit.h"
#include "gpusift/match_validation.h"
#include "gpusift/ransac.h"

namespace gpusift {

namespace {

// The nearest two of `train` rows to one query row. Compiled for the SSE2 baseline and for
// AVX2 (without FMA), which give the same bits: the eight distance lanes are vector lanes.
GPUSIFT_CLONES_AVX2 TwoNearest nearest_two_float(const float* query_row, const float* train,
                                                 int train_count, int size) {
  TwoNearest nearest = no_neighbours();
  for (int j = 0; j < train_count; ++j)
    offer(squared_distance(query_row, train + static_cast<ptrdiff_t>(j) * size, size), j, &nearest);
  return nearest;
}

GPUSIFT_CLONES_AVX2 TwoNearest nearest_two_bytes(const uint8_t* query_row, const uint8_t* train,
                                                 int train_count, int size) {
  TwoNearest nearest = no_neighbours();
  for (int j = 0; j < train_count; ++j)
    offer(squared_distance(query_row, train + static_cast<ptrdiff_t>(j) * size, size), j, &nearest);
  return nearest;
}

TwoNearest nearest_two_of_row(const DescriptorSetView& rows, int row,
                              const DescriptorSetView& against) {
  const ptrdiff_t offset = static_cast<ptrdiff_t>(row) * rows.size;
  if (rows.format == DescriptorFormat::kUint8)
    return nearest_two_bytes(static_cast<const uint8_t*>(rows.data) + offset,
                             static_cast<const uint8_t*>(against.data), against.count, rows.size);
  return nearest_two_float(static_cast<const float*>(rows.data) + offset,
                           static_cast<const float*>(against.data), against.count, rows.size);
}

void require_host_memory(const DescriptorSetView& set, const char* name) {
  if (set.memory != MemoryKind::kHost)
    throw Error(ErrorCode::kInvalidArgument,
                std::string("match: the CPU matcher reads host memory only, and the ") + name +
                    " descriptors are in device memory");
}

}  // namespace

void CpuMatcher::nearest_two(const DescriptorSetView& query, const DescriptorSetView& train,
                             std::vector<TwoNearest>* out) {
  validate_match_inputs(query, train, MatchParams{});
  require_host_memory(query, "query");
  require_host_memory(train, "train");
  out->resize(static_cast<size_t>(query.count));
  TwoNearest* nearest = out->data();
#pragma omp parallel for schedule(dynamic, 16)
  for (int i = 0; i < query.count; ++i)
    nearest[i] = nearest_two_of_row(query, i, train);
}

void CpuMatcher::match(const DescriptorSetView& query, const DescriptorSetView& train,
                       const MatchParams& params, std::vector<Match>* out) {
  out->clear();
  validate_match_inputs(query, train, params);
  require_host_memory(query, "query");
  require_host_memory(train, "train");
  if (query.count == 0 || train.count == 0)
    return;
  nearest_two(query, train, &nearest_);

  // Cross-check: the nearest query row of each train row some query row chose (-1 for none).
  if (params.cross_check) {
    nearest_query_of_train_.assign(static_cast<size_t>(train.count), -1);
    std::vector<int32_t> chosen;
    for (int i = 0; i < query.count; ++i) {
      const int32_t j = nearest_[i].best.index;
      if (passes_ratio_test(nearest_[i], params.ratio) && nearest_query_of_train_[j] == -1) {
        nearest_query_of_train_[j] = -2;
        chosen.push_back(j);
      }
    }
    const int chosen_count = static_cast<int>(chosen.size());
#pragma omp parallel for schedule(dynamic, 4)
    for (int c = 0; c < chosen_count; ++c)
      nearest_query_of_train_[chosen[c]] = nearest_two_of_row(train, chosen[c], query).best.index;
  }

  for (int i = 0; i < query.count; ++i) {
    const TwoNearest& n = nearest_[i];
    if (!passes_ratio_test(n, params.ratio))
      continue;
    if (params.cross_check && nearest_query_of_train_[n.best.index] != i)
      continue;
    out->push_back(Match{i, n.best.index, sqrtf(n.best.distance_sq)});
  }
}

MotionEstimate CpuMatcher::estimate_motion(const std::vector<PointPair>& pairs,
                                           const RansacParams& params) {
  validate(params);
  return finish_motion_estimate(pairs, params, best_hypothesis_on_cpu(pairs, params));
}

void CpuMatcher::match_and_fit(const MatchAndFitRequest& request, MatchAndFitResult* out) {
  validate_match_and_fit(request);
  out->motion = MotionEstimate{};
  match(request.query, request.train, request.match, &out->matches);
  if (request.one_query_per_train)
    keep_nearest_query_per_train(&out->matches, request.train.count);
  pairs_of_matches(out->matches, request.query_points, request.train_points,
                   request.pairs_from_train, &out->pairs);
  if (request.ransac.model != MotionModel::kNone)
    out->motion = estimate_motion(out->pairs, request.ransac);
}

}  // namespace gpusift
