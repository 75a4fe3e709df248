// SPDX-License-Identifier: LGPL-2.1-or-later
// RANSAC on the CPU: each motion model recovered from synthetic pairs with 40 % outliers, a
// homography recovered from real SIFT matches of an image and its perspective warp, determinism,
// degenerate input; and the shared pieces (minimal solvers, sampling) on their own.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <set>

#include "gpusift/cpu_matcher.h"
#include "gpusift/error.h"
#include "gpusift/motion_models.h"
#include "gpusift/ransac.h"
#include "match_data.h"

namespace gpusift::testing {
namespace {

constexpr int kInliers = 180;
constexpr int kOutliers = 120;  // 40 %
constexpr double kNoise = 0.5;

MotionEstimate estimate(const std::vector<PointPair>& pairs, MotionModel model, uint64_t seed = 1) {
  RansacParams params;
  params.model = model;
  params.seed = seed;
  return CpuMatcher().estimate_motion(pairs, params);
}

class EachModel : public ::testing::TestWithParam<MotionModel> {};

TEST_P(EachModel, RecoversTheMotionAndItsInliers) {
  const MotionModel model = GetParam();
  const std::vector<double> truth = known_motion(model);
  const SyntheticPairs data = synthetic_pairs(truth.data(), kInliers, kOutliers, kNoise, 42);
  const MotionEstimate e = estimate(data.pairs, model);
  ASSERT_TRUE(e.found);
  EXPECT_LT(corner_error(e.matrix, truth.data(), 640, 480), 0.5);
  EXPECT_EQ(e.inliers, kInliers);
  EXPECT_EQ(e.inlier_mask, data.is_inlier);
  EXPECT_EQ(e.matrix[8], 1.0);
  if (model != MotionModel::kHomography) {
    EXPECT_EQ(e.matrix[6], 0.0);
    EXPECT_EQ(e.matrix[7], 0.0);
  }
}

TEST_P(EachModel, SameSeedSameResultWhateverTheThreads) {
  const MotionModel model = GetParam();
  const std::vector<double> truth = known_motion(model);
  const SyntheticPairs data = synthetic_pairs(truth.data(), kInliers, kOutliers, kNoise, 7);
  const MotionEstimate first = estimate(data.pairs, model, 99);
  EXPECT_TRUE(bit_identical(first, estimate(data.pairs, model, 99)));
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const MotionEstimate single = estimate(data.pairs, model, 99);
  omp_set_num_threads(threads);
  EXPECT_TRUE(bit_identical(first, single));
  // The search itself agrees on the winner.
  RansacParams params;
  params.model = model;
  params.seed = 99;
  const HypothesisScore best = best_hypothesis_on_cpu(data.pairs, params);
  EXPECT_GE(best.iteration, 0);
  EXPECT_GE(best.inliers, kInliers * 9 / 10);
}

TEST_P(EachModel, MinimalSolverReproducesTheMotion) {
  const MotionModel model = GetParam();
  const std::vector<double> truth = known_motion(model);
  const SyntheticPairs data = synthetic_pairs(truth.data(), 4, 0, 0.0, 3);
  const PointPair* sample[4] = {&data.pairs[0], &data.pairs[1], &data.pairs[2], &data.pairs[3]};
  double h[9];
  ASSERT_TRUE(solve_minimal(model, sample, h));
  // Exact up to the float coordinates of the pairs.
  EXPECT_LT(corner_error(h, truth.data(), 640, 480), 1e-2);
  for (int i = 0; i < minimal_sample_size(model); ++i)
    EXPECT_TRUE(is_inlier(h, data.pairs[i], 1e-4));
}

INSTANTIATE_TEST_SUITE_P(Models, EachModel, ::testing::ValuesIn(all_motion_models()),
                         [](const auto& info) { return std::string(model_name(info.param)); });

TEST(Ransac, HomographyOfARealWarpWithinOnePixel) {
  const cv::Mat gray = load_gray("astronaut.png");
  const cv::Matx33d truth = test_homography(gray.size());
  const DescriptorSet a = sift_set(gray), b = sift_set(warped(gray, truth));
  CpuMatcher matcher;
  std::vector<Match> matches;
  matcher.match(a.view(), b.view(), MatchParams{}, &matches);
  std::vector<PointPair> pairs;
  point_pairs_from_matches(matches, a.keypoints, b.keypoints, &pairs);
  ASSERT_GT(pairs.size(), 100u);
  RansacParams params;
  const MotionEstimate e = matcher.estimate_motion(pairs, params);
  ASSERT_TRUE(e.found);
  EXPECT_LE(corner_error(e.matrix, truth.val, gray.cols, gray.rows), 1.0);
  EXPECT_GT(e.inliers, static_cast<int>(pairs.size() * 8 / 10));
  std::printf("real warp: %zu matches, %d inliers, corner error %.3f px\n", pairs.size(), e.inliers,
              corner_error(e.matrix, truth.val, gray.cols, gray.rows));
}

TEST(Ransac, TooFewPairsAreNotFound) {
  const std::vector<double> truth = known_motion(MotionModel::kHomography);
  const SyntheticPairs data = synthetic_pairs(truth.data(), 3, 0, 0.0, 5);
  for (size_t n : {0, 1, 3}) {
    const std::vector<PointPair> pairs(data.pairs.begin(), data.pairs.begin() + n);
    const MotionEstimate e = estimate(pairs, MotionModel::kHomography);
    EXPECT_FALSE(e.found) << n;
    EXPECT_EQ(e.inliers, 0);
    EXPECT_TRUE(e.inlier_mask.empty());
    EXPECT_TRUE(bit_identical(e, MotionEstimate{}));
  }
  EXPECT_FALSE(estimate(std::vector<PointPair>(1, data.pairs[0]), MotionModel::kSimilarity).found);
  EXPECT_TRUE(estimate(std::vector<PointPair>(1, data.pairs[0]), MotionModel::kTranslation).found);
}

TEST(Ransac, DegenerateInputIsNotFound) {
  const std::vector<PointPair> same(100, PointPair{10, 20, 30, 40});
  for (MotionModel model :
       {MotionModel::kSimilarity, MotionModel::kAffine, MotionModel::kHomography})
    EXPECT_FALSE(estimate(same, model).found) << model_name(model);
  // Identical pairs do fix a translation.
  EXPECT_TRUE(estimate(same, MotionModel::kTranslation).found);
  std::vector<PointPair> line;
  for (int i = 0; i < 50; ++i)
    line.push_back(PointPair{float(i), float(2 * i), float(i + 3), float(2 * i - 1)});
  EXPECT_FALSE(estimate(line, MotionModel::kAffine).found);
  EXPECT_FALSE(estimate(line, MotionModel::kHomography).found);
  RansacParams none;
  none.model = MotionModel::kNone;
  EXPECT_FALSE(CpuMatcher().estimate_motion(line, none).found);
  RansacParams zero_iterations;
  zero_iterations.iterations = 0;
  EXPECT_FALSE(CpuMatcher().estimate_motion(line, zero_iterations).found);
}

TEST(Ransac, RejectsBadParameters) {
  CpuMatcher matcher;
  for (const RansacParams& p : {RansacParams{MotionModel::kHomography, 3.f, -1, 0},
                                RansacParams{MotionModel::kHomography, 0.f, 10, 0},
                                RansacParams{MotionModel::kHomography, NAN, 10, 0},
                                RansacParams{MotionModel::kHomography, INFINITY, 10, 0}}) {
    try {
      matcher.estimate_motion({}, p);
      ADD_FAILURE() << "no error";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::kInvalidArgument);
    }
  }
}

TEST(MotionMath, DegenerateSamplesAreRejected) {
  const PointPair a{0, 0, 1, 1}, b{10, 0, 11, 1}, c{20, 0, 21, 1}, d{0, 10, 1, 11};
  const PointPair* collinear[4] = {&a, &b, &c, &d};  // a, b, c on one line
  double h[9];
  EXPECT_FALSE(solve_minimal(MotionModel::kHomography, collinear, h));
  EXPECT_FALSE(solve_minimal(MotionModel::kAffine, collinear, h));
  const PointPair* repeated[4] = {&a, &a, &b, &d};
  EXPECT_FALSE(solve_minimal(MotionModel::kSimilarity, repeated, h));
  EXPECT_FALSE(solve_minimal(MotionModel::kHomography, repeated, h));
  // A mirror image flips the triangles' orientation: no homography without passing infinity.
  const PointPair m0{0, 0, 0, 0}, m1{10, 0, -10, 0}, m2{10, 10, -10, 10}, m3{0, 10, 0, 10};
  const PointPair* mirrored[4] = {&m0, &m1, &m2, &m3};
  EXPECT_FALSE(solve_minimal(MotionModel::kHomography, mirrored, h));
  const PointPair* square[4] = {&a, &b, &d, &d};
  EXPECT_FALSE(solve_minimal(MotionModel::kHomography, square, h));
}

TEST(MotionMath, SamplesAreDistinctInRangeAndDeterministic) {
  std::set<std::vector<int>> seen;
  for (int iteration = 0; iteration < 200; ++iteration) {
    int first[4], again[4];
    ASSERT_TRUE(draw_minimal_sample(5, iteration, 4, 10, first));
    ASSERT_TRUE(draw_minimal_sample(5, iteration, 4, 10, again));
    EXPECT_TRUE(std::equal(first, first + 4, again));
    EXPECT_EQ(std::set<int>(first, first + 4).size(), 4u);
    for (int i : first)
      EXPECT_TRUE(i >= 0 && i < 10);
    seen.insert(std::vector<int>(first, first + 4));
  }
  EXPECT_GT(seen.size(), 150u);  // not one sample over and over
  int other[4], first[4];
  draw_minimal_sample(5, 0, 4, 1000, first);
  draw_minimal_sample(6, 0, 4, 1000, other);
  EXPECT_FALSE(std::equal(first, first + 4, other));
  int too_many[4];
  EXPECT_FALSE(draw_minimal_sample(1, 0, 4, 3, too_many));
}

}  // namespace
}  // namespace gpusift::testing
