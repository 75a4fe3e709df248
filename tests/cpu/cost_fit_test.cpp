// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-bench-cuda's sweep arithmetic (the tool itself needs a GPU).
#include "cost_fit.h"

#include <gtest/gtest.h>

namespace gpusift::tools {
namespace {

TEST(CostFit, RecoversTheFixedCostAndTheCostPerKeypointOfALine) {
  // 0.19 ms plus 31 ns a keypoint, as the issue measured at 1080p.
  std::vector<CostPoint> points;
  for (int k : {120, 900, 3000, 8000, 19000})
    points.push_back({k, 0.19 + 31e-6 * k});
  const CostFit fit = fit_cost(points);
  ASSERT_TRUE(fit.valid);
  EXPECT_NEAR(fit.fixed_ms, 0.19, 1e-9);
  EXPECT_NEAR(fit.ns_per_keypoint, 31.0, 1e-6);
  EXPECT_NEAR(fit.worst_residual_ms, 0.0, 1e-9);
}

TEST(CostFit, ReportsTheWorstResidual) {
  const CostFit fit = fit_cost({{0, 1.0}, {1000, 2.0}, {2000, 3.0}, {3000, 4.5}});
  ASSERT_TRUE(fit.valid);
  EXPECT_GT(fit.worst_residual_ms, 0.1);
  EXPECT_GT(fit.ns_per_keypoint, 1000.0);
}

TEST(CostFit, NeedsTwoDistinctCounts) {
  EXPECT_FALSE(fit_cost({}).valid);
  EXPECT_FALSE(fit_cost({{500, 0.3}}).valid);
  EXPECT_FALSE(fit_cost({{500, 0.3}, {500, 0.4}}).valid);
}

}  // namespace
}  // namespace gpusift::tools
