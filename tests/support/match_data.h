// SPDX-License-Identifier: LGPL-2.1-or-later
// Descriptor sets and point pairs for the matcher suites (CPU and CUDA): real SIFT and SURF
// features of the test images, their copies under a known homography, random unit vectors, and
// synthetic point pairs under a known motion with outliers.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <random>
#include <string>
#include <vector>

#include "gpusift/cpu_sift.h"
#include "gpusift/cpu_surf.h"
#include "gpusift/match_types.h"
#include "test_images.h"

namespace gpusift::testing {

// Descriptor rows with their keypoints, owning the storage a DescriptorSetView points into.
struct DescriptorSet {
  std::vector<Keypoint> keypoints;
  std::vector<float> floats;
  std::vector<uint8_t> bytes;
  int count = 0;
  int size = 0;
  DescriptorFormat format = DescriptorFormat::kFloat;

  DescriptorSetView view() const {
    const void* data = format == DescriptorFormat::kUint8 ? static_cast<const void*>(bytes.data())
                                                          : static_cast<const void*>(floats.data());
    return DescriptorSetView{data, count, size, format, MemoryKind::kHost};
  }
  size_t value_bytes() const {
    return static_cast<size_t>(count) * size * (format == DescriptorFormat::kUint8 ? 1 : 4);
  }
  const void* data() const { return view().data; }

  cv::Mat as_mat() const {
    if (format == DescriptorFormat::kUint8)
      return cv::Mat(count, size, CV_8U, const_cast<uint8_t*>(bytes.data()));
    return cv::Mat(count, size, CV_32F, const_cast<float*>(floats.data()));
  }

  // The first `n` rows (all when fewer).
  DescriptorSet first(int n) const {
    DescriptorSet s = *this;
    s.count = std::min(n, count);
    s.keypoints.resize(std::min<size_t>(s.count, keypoints.size()));
    if (format == DescriptorFormat::kUint8)
      s.bytes.resize(static_cast<size_t>(s.count) * size);
    else
      s.floats.resize(static_cast<size_t>(s.count) * size);
    return s;
  }

  void append(const DescriptorSet& other) {
    keypoints.insert(keypoints.end(), other.keypoints.begin(), other.keypoints.end());
    floats.insert(floats.end(), other.floats.begin(), other.floats.end());
    bytes.insert(bytes.end(), other.bytes.begin(), other.bytes.end());
    count += other.count;
    size = other.size;
    format = other.format;
  }
};

inline DescriptorSet from_features(const Features& f) {
  DescriptorSet s;
  s.keypoints = f.keypoints;
  s.count = static_cast<int>(f.keypoints.size());
  s.size = f.descriptor_size;
  s.format = f.descriptor_format;
  if (f.descriptor_format == DescriptorFormat::kUint8)
    s.bytes.assign(f.byte_descriptors.begin(), f.byte_descriptors.begin() + s.count * s.size);
  else
    s.floats.assign(f.float_descriptors.begin(), f.float_descriptors.begin() + s.count * s.size);
  return s;
}

inline DescriptorSet sift_set(const cv::Mat& gray,
                              DescriptorFormat format = DescriptorFormat::kFloat,
                              bool upscale = true) {
  SiftParams params;
  params.descriptor = format;
  params.upscale = upscale;
  CpuSiftExtractor extractor(params);
  return from_features(extractor.extract(gray.data, gray.step, gray.cols, gray.rows));
}

inline DescriptorSet surf_set(const cv::Mat& gray, bool extended = false) {
  SurfParams params;
  params.extended = extended;
  CpuSurfExtractor extractor(params);
  return from_features(extractor.extract(gray.data, gray.step, gray.cols, gray.rows));
}

// A perspective warp that keeps most of the image in view: rotation, scale, shear and a little
// keystone about the centre.
inline cv::Matx33d test_homography(const cv::Size& size) {
  const double cx = size.width / 2.0, cy = size.height / 2.0;
  const cv::Matx33d to_centre(1, 0, -cx, 0, 1, -cy, 0, 0, 1);
  const cv::Matx33d back(1, 0, cx, 0, 1, cy, 0, 0, 1);
  const double a = 12.0 * CV_PI / 180.0, s = 0.9;
  const cv::Matx33d turn(s * std::cos(a), -s * std::sin(a), 6, s * std::sin(a), s * std::cos(a), -4,
                         2e-4, -1e-4, 1);
  return back * turn * to_centre;
}

inline cv::Mat warped(const cv::Mat& gray, const cv::Matx33d& h) {
  cv::Mat out;
  cv::warpPerspective(gray, out, cv::Mat(h), gray.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT,
                      cv::Scalar(0));
  return out;
}

// `count` rows of `size` uniform random values in [0, 1), each scaled to unit L2 norm (SIFT-like:
// non-negative), from `seed`.
inline DescriptorSet random_unit_set(int count, int size, uint32_t seed) {
  DescriptorSet s;
  s.count = count;
  s.size = size;
  s.format = DescriptorFormat::kFloat;
  s.floats.resize(static_cast<size_t>(count) * size);
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> uniform(0.f, 1.f);
  for (int i = 0; i < count; ++i) {
    float* row = s.floats.data() + static_cast<size_t>(i) * size;
    double norm = 0;
    for (int k = 0; k < size; ++k) {
      row[k] = uniform(random);
      norm += static_cast<double>(row[k]) * row[k];
    }
    for (int k = 0; k < size; ++k)
      row[k] = static_cast<float>(row[k] / std::sqrt(norm));
  }
  return s;
}

inline DescriptorSet random_byte_set(int count, int size, uint32_t seed) {
  DescriptorSet s;
  s.count = count;
  s.size = size;
  s.format = DescriptorFormat::kUint8;
  s.bytes.resize(static_cast<size_t>(count) * size);
  std::mt19937 random(seed);
  for (uint8_t& b : s.bytes)
    b = static_cast<uint8_t>(random() % 64);  // SIFT bytes are mostly small
  return s;
}

inline std::vector<std::pair<int, int>> index_pairs(const std::vector<Match>& matches) {
  std::vector<std::pair<int, int>> pairs;
  for (const Match& m : matches)
    pairs.emplace_back(m.query, m.train);
  return pairs;
}

inline bool bit_identical(const std::vector<Match>& a, const std::vector<Match>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(Match)) == 0);
}

inline bool bit_identical(const MotionEstimate& a, const MotionEstimate& b) {
  return a.found == b.found && std::memcmp(a.matrix, b.matrix, sizeof(a.matrix)) == 0 &&
         a.inliers == b.inliers && a.inlier_mask == b.inlier_mask;
}

inline bool bit_identical(const MatchAndFitResult& a, const MatchAndFitResult& b) {
  return bit_identical(a.matches, b.matches) && a.pairs.size() == b.pairs.size() &&
         (a.pairs.empty() ||
          std::memcmp(a.pairs.data(), b.pairs.data(), a.pairs.size() * sizeof(PointPair)) == 0) &&
         bit_identical(a.motion, b.motion);
}

inline std::vector<PointXY> positions(const DescriptorSet& set) {
  std::vector<PointXY> points;
  for (const Keypoint& k : set.keypoints)
    points.push_back(PointXY{k.x, k.y});
  points.resize(static_cast<size_t>(set.count), PointXY{0.f, 0.f});
  return points;
}

// A match-and-fit job between two sets, with their keypoints as positions (held in `points`).
struct FitJob {
  std::vector<PointXY> query_points, train_points;
  MatchAndFitRequest request;

  FitJob(const DescriptorSet& query, const DescriptorSet& train, MotionModel model,
         bool one_query_per_train, bool pairs_from_train)
      : query_points(positions(query)), train_points(positions(train)) {
    request.query = query.view();
    request.train = train.view();
    request.query_points = query_points.data();
    request.train_points = train_points.data();
    request.one_query_per_train = one_query_per_train;
    request.pairs_from_train = pairs_from_train;
    request.ransac.model = model;
  }
};

inline cv::Point2d apply(const double* h, cv::Point2d p) {
  const double w = h[6] * p.x + h[7] * p.y + h[8];
  return {(h[0] * p.x + h[1] * p.y + h[2]) / w, (h[3] * p.x + h[4] * p.y + h[5]) / w};
}

// Largest distance between the images of a width x height frame's corners under a and b.
inline double corner_error(const double* a, const double* b, double width, double height) {
  double worst = 0;
  for (const cv::Point2d c : {cv::Point2d(0, 0), cv::Point2d(width, 0), cv::Point2d(width, height),
                              cv::Point2d(0, height)}) {
    const cv::Point2d pa = apply(a, c), pb = apply(b, c);
    worst = std::max(worst, std::hypot(pa.x - pb.x, pa.y - pb.y));
  }
  return worst;
}

// Point pairs under a known motion: `inliers` pairs moved by h with noise of up to `noise` px
// per coordinate, then `outliers` pairs whose target is random, shuffled by `seed`. is_inlier[i]
// tells which is which.
struct SyntheticPairs {
  std::vector<PointPair> pairs;
  std::vector<uint8_t> is_inlier;
};

inline SyntheticPairs synthetic_pairs(const double* h, int inliers, int outliers, double noise,
                                      uint32_t seed, double width = 640, double height = 480) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> x(0, width), y(0, height), jitter(-noise, noise);
  SyntheticPairs s;
  for (int i = 0; i < inliers + outliers; ++i) {
    const cv::Point2d from(x(random), y(random));
    cv::Point2d to;
    if (i < inliers) {
      to = apply(h, from);
      to.x += jitter(random), to.y += jitter(random);
    } else {
      // Far from where the motion sends the point, so that it is no inlier by chance.
      const cv::Point2d truth = apply(h, from);
      do {
        to = cv::Point2d(x(random), y(random));
      } while (std::hypot(to.x - truth.x, to.y - truth.y) < 20);
    }
    s.pairs.push_back(PointPair{static_cast<float>(from.x), static_cast<float>(from.y),
                                static_cast<float>(to.x), static_cast<float>(to.y)});
    s.is_inlier.push_back(i < inliers);
  }
  std::vector<size_t> order(s.pairs.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::shuffle(order.begin(), order.end(), random);
  SyntheticPairs shuffled;
  for (size_t i : order) {
    shuffled.pairs.push_back(s.pairs[i]);
    shuffled.is_inlier.push_back(s.is_inlier[i]);
  }
  return shuffled;
}

// A known motion of each model for a 640x480 frame.
inline std::vector<double> known_motion(MotionModel model) {
  switch (model) {
    case MotionModel::kTranslation:
      return {1, 0, 12.5, 0, 1, -7.25, 0, 0, 1};
    case MotionModel::kSimilarity: {
      const double a = 0.3, s = 1.1;
      return {
          s * std::cos(a), -s * std::sin(a), 40, s * std::sin(a), s * std::cos(a), -25, 0, 0, 1};
    }
    case MotionModel::kAffine:
      return {1.05, 0.12, -20, -0.08, 0.93, 15, 0, 0, 1};
    case MotionModel::kHomography:
      return {0.95, 0.1, 10, -0.05, 1.02, -8, 1.5e-4, -1e-4, 1};
    case MotionModel::kNone:
      break;
  }
  return {1, 0, 0, 0, 1, 0, 0, 0, 1};
}

inline const char* model_name(MotionModel model) {
  switch (model) {
    case MotionModel::kTranslation:
      return "translation";
    case MotionModel::kSimilarity:
      return "similarity";
    case MotionModel::kAffine:
      return "affine";
    case MotionModel::kHomography:
      return "homography";
    case MotionModel::kNone:
      break;
  }
  return "none";
}

inline const std::vector<MotionModel>& all_motion_models() {
  static const std::vector<MotionModel> models = {MotionModel::kTranslation,
                                                  MotionModel::kSimilarity, MotionModel::kAffine,
                                                  MotionModel::kHomography};
  return models;
}

}  // namespace gpusift::testing
