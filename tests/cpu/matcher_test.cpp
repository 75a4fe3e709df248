// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU matcher against OpenCV's brute-force matcher on real features: the same pairs for
// Lowe's ratio test (knnMatch, k = 2) and for cross-checking, for float, uint8, RootSIFT and SURF
// descriptors; then edge cases and argument errors.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <functional>
#include <opencv2/features2d.hpp>
#include <set>

#include "gpusift/cpu_matcher.h"
#include "gpusift/error.h"
#include "gpusift/match_and_fit.h"
#include "gpusift/matcher.h"
#include "match_data.h"

namespace gpusift::testing {
namespace {

constexpr float kRatio = 0.8f;
// OpenCV sums in another order: a distance may differ in its last bits, so pairs whose ratio test
// is this close to its threshold may go either way.
constexpr float kBorderline = 1e-5f;

struct ReferenceMatches {
  std::set<std::pair<int, int>> sure;        // kept by OpenCV, clear of the threshold
  std::set<std::pair<int, int>> borderline;  // too near the threshold to call
};

// Lowe's test on OpenCV's two nearest, optionally cross-checked with OpenCV's nearest query row of
// each train row.
ReferenceMatches opencv_matches(const DescriptorSet& query, const DescriptorSet& train, float ratio,
                                bool cross_check) {
  cv::BFMatcher matcher(cv::NORM_L2);
  std::vector<std::vector<cv::DMatch>> knn;
  matcher.knnMatch(query.as_mat(), train.as_mat(), knn, 2);
  std::vector<cv::DMatch> backward;
  if (cross_check)
    matcher.match(train.as_mat(), query.as_mat(), backward);
  ReferenceMatches reference;
  for (const auto& pair : knn) {
    if (pair.empty())
      continue;
    const cv::DMatch& best = pair[0];
    if (cross_check && backward[best.trainIdx].trainIdx != best.queryIdx)
      continue;
    const std::pair<int, int> key{best.queryIdx, best.trainIdx};
    if (pair.size() < 2) {
      reference.sure.insert(key);
      continue;
    }
    const float limit = ratio * pair[1].distance;
    if (std::fabs(best.distance - limit) <= kBorderline * limit)
      reference.borderline.insert(key);
    else if (best.distance < limit)
      reference.sure.insert(key);
  }
  return reference;
}

std::vector<Match> cpu_matches(const DescriptorSet& query, const DescriptorSet& train,
                               float ratio = kRatio, bool cross_check = false) {
  CpuMatcher matcher;
  std::vector<Match> out;
  matcher.match(query.view(), train.view(), MatchParams{ratio, cross_check}, &out);
  return out;
}

void expect_opencv_pairs(const DescriptorSet& query, const DescriptorSet& train, float ratio,
                         bool cross_check) {
  const ReferenceMatches reference = opencv_matches(query, train, ratio, cross_check);
  const std::vector<Match> ours = cpu_matches(query, train, ratio, cross_check);
  std::set<std::pair<int, int>> kept;
  for (const Match& m : ours) {
    kept.insert({m.query, m.train});
    EXPECT_TRUE(reference.sure.count({m.query, m.train}) ||
                reference.borderline.count({m.query, m.train}))
        << "extra match " << m.query << " -> " << m.train;
  }
  for (const auto& pair : reference.sure)
    EXPECT_TRUE(kept.count(pair)) << "missing match " << pair.first << " -> " << pair.second;
  EXPECT_GT(reference.sure.size(), 50u);
  EXPECT_LE(reference.borderline.size(), 2u);
  // Sorted by query row, and the distance is the L2 distance of the rows.
  for (size_t i = 1; i < ours.size(); ++i)
    EXPECT_LT(ours[i - 1].query, ours[i].query);
  const cv::Mat q = query.as_mat(), t = train.as_mat();
  for (const Match& m : ours)
    EXPECT_NEAR(m.distance, cv::norm(q.row(m.query), t.row(m.train), cv::NORM_L2),
                1e-5 * std::max(1.0, static_cast<double>(m.distance)));
}

struct ImagePair {
  cv::Mat original, moved;
};

ImagePair astronaut_pair() {
  const cv::Mat gray = load_gray("astronaut.png");
  return {gray, warped(gray, test_homography(gray.size()))};
}

TEST(CpuMatcher, SiftFloatEqualsOpenCvKnnWithRatio) {
  const ImagePair images = astronaut_pair();
  const DescriptorSet a = sift_set(images.original), b = sift_set(images.moved);
  expect_opencv_pairs(a, b, kRatio, false);
}

TEST(CpuMatcher, SiftFloatCrossCheckEqualsOpenCv) {
  const ImagePair images = astronaut_pair();
  const DescriptorSet a = sift_set(images.original), b = sift_set(images.moved);
  expect_opencv_pairs(a, b, kRatio, true);
}

// With the ratio test out of the way, cross-checking is BFMatcher(NORM_L2, crossCheck = true).
TEST(CpuMatcher, CrossCheckWithoutRatioEqualsOpenCvCrossCheck) {
  const ImagePair images = astronaut_pair();
  const DescriptorSet a = sift_set(images.original), b = sift_set(images.moved);
  std::vector<cv::DMatch> reference;
  cv::BFMatcher(cv::NORM_L2, true).match(a.as_mat(), b.as_mat(), reference);
  std::vector<std::pair<int, int>> expected;
  for (const cv::DMatch& m : reference)
    expected.emplace_back(m.queryIdx, m.trainIdx);
  EXPECT_EQ(index_pairs(cpu_matches(a, b, 1e6f, true)), expected);
}

TEST(CpuMatcher, SiftUint8EqualsOpenCv) {
  const ImagePair images = astronaut_pair();
  const DescriptorSet a = sift_set(images.original, DescriptorFormat::kUint8);
  const DescriptorSet b = sift_set(images.moved, DescriptorFormat::kUint8);
  expect_opencv_pairs(a, b, kRatio, false);
  expect_opencv_pairs(a, b, kRatio, true);
}

TEST(CpuMatcher, RootSiftEqualsOpenCv) {
  const ImagePair images = astronaut_pair();
  const DescriptorSet a = sift_set(images.original, DescriptorFormat::kRootSift);
  const DescriptorSet b = sift_set(images.moved, DescriptorFormat::kRootSift);
  expect_opencv_pairs(a, b, kRatio, false);
}

TEST(CpuMatcher, Surf64EqualsOpenCv) {
  const ImagePair images = astronaut_pair();
  const DescriptorSet a = surf_set(images.original), b = surf_set(images.moved);
  ASSERT_EQ(a.size, 64);
  expect_opencv_pairs(a, b, kRatio, false);
  expect_opencv_pairs(a, b, kRatio, true);
}

TEST(CpuMatcher, Surf128EqualsOpenCv) {
  const ImagePair images = astronaut_pair();
  const DescriptorSet a = surf_set(images.original, true), b = surf_set(images.moved, true);
  ASSERT_EQ(a.size, 128);
  expect_opencv_pairs(a, b, kRatio, false);
}

// Random descriptors of sizes the staging pads (neither a multiple of 8 nor of 16).
TEST(CpuMatcher, OddSizesEqualOpenCv) {
  for (int size : {1, 7, 33, 100}) {
    SCOPED_TRACE(size);
    const DescriptorSet a = random_unit_set(300, size, 1), b = random_unit_set(400, size, 2);
    const ReferenceMatches reference = opencv_matches(a, b, 0.95f, false);
    const std::vector<Match> ours = cpu_matches(a, b, 0.95f);
    for (const Match& m : ours)
      EXPECT_TRUE(reference.sure.count({m.query, m.train}) ||
                  reference.borderline.count({m.query, m.train}));
    EXPECT_GE(ours.size(), reference.sure.size());
  }
}

TEST(CpuMatcher, ResultDoesNotDependOnThreadCount) {
  const DescriptorSet a = random_unit_set(700, 128, 3), b = random_unit_set(900, 128, 4);
  const std::vector<Match> many = cpu_matches(a, b, 0.9f, true);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const std::vector<Match> one = cpu_matches(a, b, 0.9f, true);
  omp_set_num_threads(threads);
  EXPECT_TRUE(bit_identical(many, one));
}

TEST(CpuMatcher, EmptySetsGiveNoMatches) {
  const DescriptorSet a = random_unit_set(10, 128, 5);
  const DescriptorSet none = a.first(0);
  std::vector<Match> out = {Match{1, 2, 3.f}};
  CpuMatcher matcher;
  matcher.match(none.view(), a.view(), MatchParams{}, &out);
  EXPECT_TRUE(out.empty());
  matcher.match(a.view(), none.view(), MatchParams{0.8f, true}, &out);
  EXPECT_TRUE(out.empty());
}

// A missing second neighbour is infinitely far: every query row keeps the only train row.
TEST(CpuMatcher, SingleTrainRowAlwaysPassesTheRatioTest) {
  const DescriptorSet a = random_unit_set(5, 128, 6), b = random_unit_set(1, 128, 7);
  const std::vector<Match> out = cpu_matches(a, b);
  ASSERT_EQ(out.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(out[i].query, i);
    EXPECT_EQ(out[i].train, 0);
  }
  // Cross-checked, only the query row nearest to it remains.
  EXPECT_EQ(cpu_matches(a, b, kRatio, true).size(), 1u);
}

// Equal distances: the lower train row is the nearest, and the ratio test (best < ratio *
// second) rejects a tie unless the ratio is above 1.
TEST(CpuMatcher, TiesGoToTheLowerIndexAndFailTheRatioTest) {
  DescriptorSet train = random_unit_set(12, 128, 8);
  std::copy_n(train.floats.begin() + 3 * 128, 128, train.floats.begin() + 9 * 128);
  DescriptorSet query = train.first(4);
  query.floats.erase(query.floats.begin(), query.floats.begin() + 3 * 128);
  query.count = 1;
  query.floats[0] += 0.01f;  // near rows 3 and 9, not equal to them
  CpuMatcher matcher;
  std::vector<TwoNearest> nearest;
  matcher.nearest_two(query.view(), train.view(), &nearest);
  EXPECT_EQ(nearest[0].best.index, 3);
  EXPECT_EQ(nearest[0].second.index, 9);
  EXPECT_EQ(nearest[0].best.distance_sq, nearest[0].second.distance_sq);
  EXPECT_TRUE(cpu_matches(query, train, 1.f).empty());
  EXPECT_EQ(cpu_matches(query, train, 1.5f).size(), 1u);
}

TEST(CpuMatcher, ReusesTheOutputVector) {
  const DescriptorSet a = random_unit_set(50, 64, 9), b = random_unit_set(60, 64, 10);
  CpuMatcher matcher;
  std::vector<Match> out(1000, Match{7, 7, 7.f});
  matcher.match(a.view(), b.view(), MatchParams{0.9f, false}, &out);
  EXPECT_TRUE(bit_identical(out, cpu_matches(a, b, 0.9f)));
}

ErrorCode code_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& error) {
    return error.code();
  }
  ADD_FAILURE() << "no gpusift::Error was thrown";
  return ErrorCode::kDeviceFailure;
}

TEST(CpuMatcher, RejectsBadArguments) {
  const DescriptorSet floats = random_unit_set(4, 128, 11);
  const DescriptorSet bytes = random_byte_set(4, 128, 12);
  CpuMatcher matcher;
  std::vector<Match> out;
  auto code = [&](DescriptorSetView q, DescriptorSetView t, MatchParams p = MatchParams{}) {
    return code_of([&] { matcher.match(q, t, p, &out); });
  };
  DescriptorSetView none = floats.view();
  none.format = DescriptorFormat::kNone;
  EXPECT_EQ(code(none, floats.view()), ErrorCode::kInvalidArgument);
  EXPECT_EQ(code(floats.view(), none), ErrorCode::kInvalidArgument);
  EXPECT_EQ(code(floats.view(), bytes.view()), ErrorCode::kInvalidArgument);
  DescriptorSetView shorter = floats.view();
  shorter.size = 64;
  EXPECT_EQ(code(floats.view(), shorter), ErrorCode::kInvalidArgument);
  DescriptorSetView too_long = floats.view();
  too_long.size = kMaxMatchDescriptorSize + 1;
  EXPECT_EQ(code(too_long, too_long), ErrorCode::kInvalidArgument);
  DescriptorSetView null = floats.view();
  null.data = nullptr;
  EXPECT_EQ(code(null, floats.view()), ErrorCode::kInvalidArgument);
  DescriptorSetView negative = floats.view();
  negative.count = -1;
  EXPECT_EQ(code(negative, floats.view()), ErrorCode::kInvalidArgument);
  DescriptorSetView device = floats.view();
  device.memory = MemoryKind::kDevice;
  EXPECT_EQ(code(device, floats.view()), ErrorCode::kInvalidArgument);
  EXPECT_EQ(code(floats.view(), floats.view(), MatchParams{0.f, false}),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(code(floats.view(), floats.view(), MatchParams{NAN, false}),
            ErrorCode::kInvalidArgument);
  // Empty sets are still checked.
  DescriptorSetView empty_none = none;
  empty_none.count = 0;
  EXPECT_EQ(code(empty_none, floats.view()), ErrorCode::kInvalidArgument);
}

TEST(MatcherFactory, CpuAndAuto) {
  auto cpu = create_matcher(Backend::kCpu);
  EXPECT_EQ(cpu->backend(), Backend::kCpu);
  const DescriptorSet a = random_unit_set(30, 128, 13), b = random_unit_set(40, 128, 14);
  std::vector<Match> out;
  cpu->match(a.view(), b.view(), MatchParams{0.9f, false}, &out);
  EXPECT_TRUE(bit_identical(out, cpu_matches(a, b, 0.9f)));
  if (cuda_device_count() == 0) {
    EXPECT_EQ(create_matcher(Backend::kAuto)->backend(), Backend::kCpu);
    EXPECT_EQ(code_of([] { create_matcher(Backend::kCuda); }), ErrorCode::kNoDevice);
  }
}

// One job equals its parts: match, the nearest query per train row, the pairs, RANSAC.
TEST(MatchAndFit, EqualsMatchSelectionPairsAndRansac) {
  const ImagePair images = astronaut_pair();
  const DescriptorSet a = sift_set(images.original), b = sift_set(images.moved);
  auto matcher = create_matcher(Backend::kCpu);
  CpuMatcher parts;
  for (MotionModel model : all_motion_models()) {
    for (bool one_per_train : {false, true}) {
      for (bool from_train : {false, true}) {
        FitJob job(a, b, model, one_per_train, from_train);
        job.request.match = MatchParams{0.8f, model == MotionModel::kAffine};
        job.request.ransac.seed = 7;
        MatchAndFitResult result;
        matcher->match_and_fit(job.request, &result);

        MatchAndFitResult expected;
        parts.match(a.view(), b.view(), job.request.match, &expected.matches);
        if (one_per_train)
          keep_nearest_query_per_train(&expected.matches, b.count);
        for (const Match& m : expected.matches) {
          const Keypoint& q = a.keypoints[m.query];
          const Keypoint& t = b.keypoints[m.train];
          expected.pairs.push_back(from_train ? PointPair{t.x, t.y, q.x, q.y}
                                              : PointPair{q.x, q.y, t.x, t.y});
        }
        if (model != MotionModel::kNone)
          expected.motion = parts.estimate_motion(expected.pairs, job.request.ransac);
        EXPECT_TRUE(bit_identical(result, expected)) << model_name(model);
        EXPECT_GT(result.matches.size(), 100u);
        EXPECT_EQ(result.motion.found, model != MotionModel::kNone) << model_name(model);
      }
    }
  }
}

TEST(MatchAndFit, NearestQueryPerTrainKeepsTheNearestAndTheLowestQueryOnTies) {
  std::vector<Match> matches = {{0, 5, 2.f}, {1, 3, 1.f}, {2, 5, 1.f}, {3, 3, 1.f},
                                {4, 7, 0.f}, {5, 5, 1.f}, {6, 3, 0.5f}};
  keep_nearest_query_per_train(&matches, 8);
  const std::vector<std::pair<int, int>> kept = {{2, 5}, {4, 7}, {6, 3}};
  EXPECT_EQ(index_pairs(matches), kept);
}

TEST(MatchAndFit, OneJobAtATimeAndBadRequestsAreRefused) {
  const DescriptorSet a = random_unit_set(50, 128, 21), b = random_unit_set(60, 128, 22);
  auto matcher = create_matcher(Backend::kCpu);
  FitJob job(a, b, MotionModel::kSimilarity, false, false);
  MatchAndFitResult result;
  EXPECT_EQ(code_of([&] { matcher->finish_match_and_fit(&result); }), ErrorCode::kInvalidArgument);
  matcher->begin_match_and_fit(job.request);
  EXPECT_EQ(code_of([&] { matcher->begin_match_and_fit(job.request); }),
            ErrorCode::kInvalidArgument);
  matcher->finish_match_and_fit(&result);
  MatchAndFitRequest no_points = job.request;
  no_points.train_points = nullptr;
  EXPECT_EQ(code_of([&] { matcher->begin_match_and_fit(no_points); }), ErrorCode::kInvalidArgument);
  MatchAndFitRequest bad_threshold = job.request;
  bad_threshold.ransac.threshold = -1.f;
  EXPECT_EQ(code_of([&] { matcher->begin_match_and_fit(bad_threshold); }),
            ErrorCode::kInvalidArgument);
  // A refused request leaves no job behind.
  matcher->match_and_fit(job.request, &result);
  MatchAndFitRequest empty = job.request;
  empty.query.count = 0;
  matcher->match_and_fit(empty, &result);
  EXPECT_TRUE(result.matches.empty());
  EXPECT_TRUE(result.pairs.empty());
  EXPECT_FALSE(result.motion.found);
}

}  // namespace
}  // namespace gpusift::testing
