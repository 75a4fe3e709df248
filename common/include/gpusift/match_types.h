// SPDX-License-Identifier: LGPL-2.1-or-later
// The value types of descriptor matching and motion estimation, shared by the CPU backend
// (common/) and the public Matcher interface (common/api/include/gpusift/matcher.h).
#pragma once

#include <cstdint>
#include <vector>

#include "gpusift/frame.h"        // MemoryKind
#include "gpusift/sift_params.h"  // DescriptorFormat

namespace gpusift {

// Rows longer than this are refused by both backends (SIFT has 128 values, SURF 64 or 128).
inline constexpr int kMaxMatchDescriptorSize = 128;

// `count` rows of `size` values, contiguous row-major: float for kFloat and kRootSift (SIFT 128,
// SURF 64 or 128), uint8 for kUint8. Device memory only for the CUDA matcher (on its device).
struct DescriptorSetView {
  const void* data;
  int count;
  int size;
  DescriptorFormat format;
  MemoryKind memory;
};

struct MatchParams {
  float ratio = 0.8f;  // Lowe's ratio test: best < ratio * second best; must be > 0
  bool cross_check = false;
};

struct Match {
  int32_t query;
  int32_t train;
  float distance;  // L2 distance (not squared)
};

enum class MotionModel { kNone, kTranslation, kSimilarity, kAffine, kHomography };

// The motion maps `from` onto `to`.
struct PointPair {
  float from_x, from_y, to_x, to_y;
};

struct RansacParams {
  MotionModel model = MotionModel::kHomography;
  float threshold = 3.0f;  // pixels of reprojection error
  int iterations = 512;
  uint64_t seed = 0;
};

struct MotionEstimate {
  bool found = false;
  double matrix[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};  // row-major 3x3, identity when !found
  int inliers = 0;
  std::vector<uint8_t> inlier_mask;  // one per pair, 1 for inliers (empty when !found)
};

// A keypoint position, one per descriptor row.
struct PointXY {
  float x, y;
};

// Matching, the pairs of the matches and RANSAC on them, as one job (Matcher::begin_match_and_fit).
struct MatchAndFitRequest {
  DescriptorSetView query{nullptr, 0, 0, DescriptorFormat::kNone, MemoryKind::kHost};
  DescriptorSetView train{nullptr, 0, 0, DescriptorFormat::kNone, MemoryKind::kHost};
  const PointXY* query_points = nullptr;  // host memory, query.count of them
  const PointXY* train_points = nullptr;  // host memory, train.count of them
  MatchParams match;
  // Keeps, of the matches to one train row, only the nearest (ties: the lowest query), so that
  // no train row is used twice (a tracker continues each track at most once).
  bool one_query_per_train = false;
  // Pairs map query points onto train points; with this, train onto query.
  bool pairs_from_train = false;
  RansacParams ransac;  // kNone: no motion is fitted
};

struct MatchAndFitResult {
  std::vector<Match> matches;    // sorted by query
  std::vector<PointPair> pairs;  // pairs[k] is the points of matches[k]
  MotionEstimate motion;         // inlier_mask[k] is for matches[k]
};

}  // namespace gpusift
