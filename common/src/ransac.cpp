#include "gpusift/ransac.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "gpusift/error.h"
#include "gpusift/motion_fit.h"
#include "gpusift/motion_models.h"

namespace gpusift {

namespace {

// Refits on the refit's own inliers while that gains inliers.
constexpr int kRefitRounds = 3;

void normalise_last_entry(double* h) {
  if (h[8] != 0.0 && std::isfinite(1.0 / h[8])) {
    const double last = h[8];
    for (int i = 0; i < 9; ++i)
      h[i] /= last;
  }
}

}  // namespace

void validate(const RansacParams& params) {
  if (params.iterations < 0)
    throw Error(ErrorCode::kInvalidArgument, "RANSAC iterations must not be negative");
  if (!(params.threshold > 0.f) || !std::isfinite(params.threshold))
    throw Error(ErrorCode::kInvalidArgument, "RANSAC threshold must be a positive number");
}

bool ransac_can_run(size_t pair_count, const RansacParams& params) {
  const int size = minimal_sample_size(params.model);
  return size > 0 && pair_count >= static_cast<size_t>(size) && params.iterations > 0 &&
         pair_count <= static_cast<size_t>(INT32_MAX);
}

int count_inliers(const double* h, const std::vector<PointPair>& pairs, double threshold_sq,
                  std::vector<uint8_t>* mask) {
  if (mask)
    mask->assign(pairs.size(), 0);
  int count = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const bool inlier = is_inlier(h, pairs[i], threshold_sq);
    count += inlier;
    if (mask)
      (*mask)[i] = inlier;
  }
  return count;
}

HypothesisScore best_hypothesis_on_cpu(const std::vector<PointPair>& pairs,
                                       const RansacParams& params) {
  HypothesisScore best;
  if (!ransac_can_run(pairs.size(), params))
    return best;
  const int count = static_cast<int>(pairs.size());
  const double threshold_sq = threshold_squared(params.threshold);
#pragma omp parallel
  {
    HypothesisScore mine;
#pragma omp for schedule(dynamic, 8) nowait
    for (int iteration = 0; iteration < params.iterations; ++iteration) {
      double h[9];
      HypothesisScore score{iteration, -1};
      if (ransac_hypothesis(pairs.data(), count, params.model, params.seed, iteration, h))
        score.inliers = count_inliers(h, pairs, threshold_sq, nullptr);
      if (better(score, mine))
        mine = score;
    }
#pragma omp critical(gpusift_ransac_best)
    if (better(mine, best))
      best = mine;
  }
  return best;
}

MotionEstimate finish_motion_estimate(const std::vector<PointPair>& pairs,
                                      const RansacParams& params, const HypothesisScore& best) {
  MotionEstimate estimate;
  double h[9];
  if (best.iteration < 0 || best.inliers < minimal_sample_size(params.model) ||
      !ransac_hypothesis(pairs.data(), static_cast<int>(pairs.size()), params.model, params.seed,
                         best.iteration, h))
    return estimate;
  const double threshold_sq = threshold_squared(params.threshold);
  std::vector<uint8_t> mask;
  int inliers = count_inliers(h, pairs, threshold_sq, &mask);
  for (int round = 0; round < kRefitRounds; ++round) {
    double refit[9];
    std::vector<uint8_t> refit_mask;
    if (!fit_motion(params.model, pairs, mask, refit))
      break;
    const int refit_inliers = count_inliers(refit, pairs, threshold_sq, &refit_mask);
    if (refit_inliers < inliers)
      break;
    const bool gained = refit_inliers > inliers;
    std::copy(refit, refit + 9, h);
    mask.swap(refit_mask);
    inliers = refit_inliers;
    if (!gained)
      break;
  }
  normalise_last_entry(h);
  estimate.found = true;
  std::copy(h, h + 9, estimate.matrix);
  estimate.inliers = inliers;
  estimate.inlier_mask = std::move(mask);
  return estimate;
}

void point_pairs_from_matches(const std::vector<Match>& matches,
                              const std::vector<Keypoint>& query_keypoints,
                              const std::vector<Keypoint>& train_keypoints,
                              std::vector<PointPair>* out) {
  out->resize(matches.size());
  for (size_t i = 0; i < matches.size(); ++i) {
    const Keypoint& q = query_keypoints.at(static_cast<size_t>(matches[i].query));
    const Keypoint& t = train_keypoints.at(static_cast<size_t>(matches[i].train));
    (*out)[i] = PointPair{q.x, q.y, t.x, t.y};
  }
}

}  // namespace gpusift
