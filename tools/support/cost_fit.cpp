// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cost_fit.h"

#include <algorithm>
#include <cmath>

namespace gpusift::tools {

CostFit fit_cost(const std::vector<CostPoint>& points) {
  CostFit fit;
  const double n = static_cast<double>(points.size());
  if (points.size() < 2)
    return fit;
  double mean_k = 0.0, mean_ms = 0.0;
  for (const CostPoint& p : points) {
    mean_k += p.keypoints / n;
    mean_ms += p.ms / n;
  }
  double covariance = 0.0, variance = 0.0;
  for (const CostPoint& p : points) {
    covariance += (p.keypoints - mean_k) * (p.ms - mean_ms);
    variance += (p.keypoints - mean_k) * (p.keypoints - mean_k);
  }
  if (variance == 0.0)
    return fit;
  const double slope_ms = covariance / variance;
  fit.fixed_ms = mean_ms - slope_ms * mean_k;
  fit.ns_per_keypoint = slope_ms * 1e6;
  for (const CostPoint& p : points)
    fit.worst_residual_ms =
        std::max(fit.worst_residual_ms, std::abs(p.ms - (fit.fixed_ms + slope_ms * p.keypoints)));
  fit.valid = true;
  return fit;
}

}  // namespace gpusift::tools
