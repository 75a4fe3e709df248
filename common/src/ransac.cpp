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
__attribute__((target_clones("avx2", "default"))) void pair_errors(const double* h,
                                                                   const PointPair* pairs,
                                                                   size_t count,
                                                                   double threshold_sq,
                                                                   uint8_t* mask, double* capped) {
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

PairScore score_pairs(const double* h, const std::vector<PointPair>& pairs, double threshold_sq,
                      std::vector<uint8_t>* mask, std::vector<uint32_t>* inliers) {
  mask->resize(pairs.size());
  std::vector<double> capped(pairs.size());
  pair_errors(h, pairs.data(), pairs.size(), threshold_sq, mask->data(), capped.data());
  if (inliers)
    inliers->resize(pairs.size());
  PairScore score;
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (inliers)
      (*inliers)[score.inliers] = static_cast<uint32_t>(i);
    score.inliers += (*mask)[i];
    score.cost += capped[i];  // in pair order: the cost decides whether the refit is kept
  }
  if (inliers)
    inliers->resize(static_cast<size_t>(score.inliers));
  return score;
}

// The mean of hypothesis `iteration`'s minimal sample: a reference point inside the data.
MotionSums sums_about_sample(const std::vector<PointPair>& pairs, const RansacParams& params,
                             int iteration) {
  const int size = minimal_sample_size(params.model);
  int indices[kMaxMinimalSample];
  draw_minimal_sample(params.seed, iteration, size, static_cast<int>(pairs.size()), indices);
  double fx = 0, fy = 0, tx = 0, ty = 0;
  for (int i = 0; i < size; ++i) {
    const PointPair& p = pairs[indices[i]];
    fx += p.from_x, fy += p.from_y, tx += p.to_x, ty += p.to_y;
  }
  return MotionSums(fx / size, fy / size, tx / size, ty / size);
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
  std::vector<uint8_t> mask, refit_mask;
  std::vector<uint32_t> inliers;
  PairScore score = score_pairs(h, pairs, threshold_sq, &mask, &inliers);
  MotionSums sums = sums_about_sample(pairs, params, best.iteration);
  sums.add(pairs, inliers);
  double refit[9];
  bool refitted = false;
  if (sums.solve(params.model, refit)) {
    const PairScore refit_score = score_pairs(refit, pairs, threshold_sq, &refit_mask, nullptr);
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
    score = score_pairs(h, pairs, threshold_sq, &mask, nullptr);
  }
  estimate.found = true;
  std::copy(h, h + 9, estimate.matrix);
  estimate.inliers = score.inliers;
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
