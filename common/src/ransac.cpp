// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/ransac.h"
#include "cpu_isa.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "gpusift/error.h"
#include "gpusift/motion_fit.h"
#include "gpusift/motion_models.h"
#include "gpusift/ransac_winner.h"

namespace gpusift {

namespace {

void normalise_last_entry(double* h) {
  if (h[8] != 0.0 && std::isfinite(1.0 / h[8])) {
    const double last = h[8];
    for (int i = 0; i < 9; ++i)
      h[i] /= last;
  }
}

// A hypothesis judged on all pairs at once: its inliers (the shared test, as the search counts
// them; their indices into `inliers` when given) and MSAC's cost, the squared reprojection errors
// each capped at the threshold's square. The refit is kept when it lowers the cost: it fits its
// inliers better without trading many away.
struct PairScore {
  int inliers = 0;
  double cost = 0;
};

typedef double Double4 __attribute__((vector_size(32)));
typedef long long Long4 __attribute__((vector_size(32)));

// Per pair, is_inlier's test and the squared reprojection error capped at the threshold's square
// (NaN, from w = 0, counts as the threshold), four pairs at a time. Element-wise, so every lane
// rounds as scalar code would: the same bits as is_inlier, on any of the clones.
GPUSIFT_CLONES_AVX2 void pair_errors(const double* h, const PointPair* pairs, size_t count,
                                     double threshold_sq, uint8_t* mask, double* capped) {
  size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    Double4 x, y, u, v;
    for (int k = 0; k < 4; ++k) {
      x[k] = pairs[i + k].from_x, y[k] = pairs[i + k].from_y;
      u[k] = pairs[i + k].to_x, v[k] = pairs[i + k].to_y;
    }
    const Double4 w = (h[6] * x + h[7] * y) + h[8];
    const Double4 ex = ((h[0] * x + h[1] * y) + h[2]) - u * w;
    const Double4 ey = ((h[3] * x + h[4] * y) + h[5]) - v * w;
    const Double4 squared = ex * ex + ey * ey;
    const Double4 w_squared = w * w;
    const Long4 inlier = squared < threshold_sq * w_squared;
    const Double4 e = squared / w_squared;
    const Long4 below = e < threshold_sq;
    for (int k = 0; k < 4; ++k) {
      mask[i + k] = inlier[k] != 0;
      capped[i + k] = below[k] ? e[k] : threshold_sq;
    }
  }
  for (; i < count; ++i) {
    const PointPair& p = pairs[i];
    mask[i] = is_inlier(h, p, threshold_sq);
    const double w = (h[6] * p.from_x + h[7] * p.from_y) + h[8];
    const double ex = ((h[0] * p.from_x + h[1] * p.from_y) + h[2]) - p.to_x * w;
    const double ey = ((h[3] * p.from_x + h[4] * p.from_y) + h[5]) - p.to_y * w;
    const double e = (ex * ex + ey * ey) / (w * w);
    capped[i] = e < threshold_sq ? e : threshold_sq;
  }
}

// The total of kWinnerLanes lane values (overwritten) in the winner's order: a tree per block,
// then the blocks in order (gpusift/ransac_winner.h).
double add_lanes_in_winner_order(double* lanes) {
  double total = 0;
  for (int block = 0; block < kWinnerBlocks; ++block) {
    double* block_lanes = lanes + block * kWinnerThreads;
    for (int stride = kWinnerThreads / 2; stride > 0; stride /= 2)
      for (int t = 0; t < stride; ++t)
        add_tree_step(block_lanes, t, stride);
    total = total + block_lanes[0];
  }
  return total;
}

double cost_in_lane_order(const std::vector<double>& capped) {
  std::vector<double> lanes(kWinnerLanes, 0.0);
  for (size_t i = 0; i < capped.size(); ++i)
    lanes[i % kWinnerLanes] = lanes[i % kWinnerLanes] + capped[i];
  return add_lanes_in_winner_order(lanes.data());
}

PairScore score_pairs(const double* h, const std::vector<PointPair>& pairs, double threshold_sq,
                      std::vector<uint8_t>* mask, std::vector<double>* capped) {
  mask->resize(pairs.size());
  capped->resize(pairs.size());
  pair_errors(h, pairs.data(), pairs.size(), threshold_sq, mask->data(), capped->data());
  PairScore score;
  for (uint8_t inlier : *mask)
    score.inliers += inlier;
  score.cost = cost_in_lane_order(*capped);
  return score;
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

RansacWinner score_winner_on_cpu(const std::vector<PointPair>& pairs, const RansacParams& params,
                                 const HypothesisScore& best, std::vector<uint8_t>* mask) {
  RansacWinner winner{};
  mask->clear();
  const int count = static_cast<int>(pairs.size());
  if (best.iteration < 0 || best.inliers < minimal_sample_size(params.model) ||
      !ransac_hypothesis(pairs.data(), count, params.model, params.seed, best.iteration,
                         winner.h) ||
      !minimal_sample_mean(pairs.data(), count, params.model, params.seed, best.iteration,
                           winner.reference))
    return winner;
  const double threshold_sq = threshold_squared(params.threshold);
  std::vector<double> capped;
  const PairScore score = score_pairs(winner.h, pairs, threshold_sq, mask, &capped);
  std::vector<WinnerLane> lanes(kWinnerLanes);
  for (size_t i = 0; i < pairs.size(); ++i)
    if ((*mask)[i])
      add_motion_products(pairs[i], winner.reference, lanes[i % kWinnerLanes].sums);
  std::vector<double> sum_lanes(kWinnerLanes);
  for (int k = 0; k < kMotionSumCount; ++k) {
    for (int l = 0; l < kWinnerLanes; ++l)
      sum_lanes[static_cast<size_t>(l)] = lanes[static_cast<size_t>(l)].sums[k];
    winner.sums[k] = add_lanes_in_winner_order(sum_lanes.data());
  }
  winner.cost = score.cost;
  winner.inliers = score.inliers;
  winner.found = 1;
  return winner;
}

MotionEstimate complete_motion_estimate(const std::vector<PointPair>& pairs,
                                        const RansacParams& params, const RansacWinner& winner,
                                        std::vector<uint8_t> mask) {
  MotionEstimate estimate;
  if (!winner.found)
    return estimate;
  double h[9];
  std::copy(winner.h, winner.h + 9, h);
  const double threshold_sq = threshold_squared(params.threshold);
  PairScore score{winner.inliers, winner.cost};
  std::vector<uint8_t> refit_mask;
  std::vector<double> capped;
  double refit[9];
  bool refitted = false;
  if (MotionSums(winner.reference, winner.sums).solve(params.model, refit)) {
    const PairScore refit_score = score_pairs(refit, pairs, threshold_sq, &refit_mask, &capped);
    if (refit_score.cost < score.cost) {
      std::copy(refit, refit + 9, h);
      score = refit_score;
      mask.swap(refit_mask);
      refitted = true;
    }
  }
  // The refit comes with h[8] = 1; a hypothesis (scaled as the search scored it) is brought to
  // that form and its inliers taken again, so that the mask is the returned matrix's.
  if (!refitted && h[8] != 1.0) {
    normalise_last_entry(h);
    score = score_pairs(h, pairs, threshold_sq, &mask, &capped);
  }
  estimate.found = true;
  std::copy(h, h + 9, estimate.matrix);
  estimate.inliers = score.inliers;
  estimate.inlier_mask = std::move(mask);
  return estimate;
}

MotionEstimate finish_motion_estimate(const std::vector<PointPair>& pairs,
                                      const RansacParams& params, const HypothesisScore& best) {
  std::vector<uint8_t> mask;
  const RansacWinner winner = score_winner_on_cpu(pairs, params, best, &mask);
  return complete_motion_estimate(pairs, params, winner, std::move(mask));
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
