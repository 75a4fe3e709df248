// SPDX-License-Identifier: LGPL-2.1-or-later
#include "feature_agreement.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpusift::testing {

namespace {

constexpr float kMaxSizeRatio = 0.25f;
constexpr float kMaxAngleDegrees = 15.f;

float position_tolerance(const cv::KeyPoint& k) {
  return std::max(1.f, 0.05f * k.size);
}

float angle_difference(float a, float b) {
  const float d = std::fabs(a - b);
  return std::min(d, 360.f - d);
}

cv::Mat unit_rows(const cv::Mat& descriptors) {
  cv::Mat rows;
  descriptors.convertTo(rows, CV_32F);
  for (int i = 0; i < rows.rows; ++i) {
    const double norm = cv::norm(rows.row(i));
    if (norm > 0)
      rows.row(i) /= norm;
  }
  return rows;
}

// Visits each pair (i of `from`, j of `to`) close enough in x to possibly agree.
template <typename Visit>
void for_each_nearby(const std::vector<cv::KeyPoint>& from, const std::vector<cv::KeyPoint>& to,
                     const std::vector<int>& to_by_x, Visit visit) {
  float widest = 1.f;
  for (const auto& k : to)
    widest = std::max(widest, position_tolerance(k));
  for (size_t i = 0; i < from.size(); ++i) {
    const cv::KeyPoint& a = from[i];
    const float reach = std::max(widest, position_tolerance(a));
    auto first = std::lower_bound(to_by_x.begin(), to_by_x.end(), a.pt.x - reach,
                                  [&](int index, float x) { return to[index].pt.x < x; });
    for (auto it = first; it != to_by_x.end() && to[*it].pt.x <= a.pt.x + reach; ++it) {
      visit(static_cast<int>(i), *it);
    }
  }
}

std::vector<int> order_by_x(const std::vector<cv::KeyPoint>& keypoints) {
  std::vector<int> order(keypoints.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return keypoints[a].pt.x < keypoints[b].pt.x; });
  return order;
}

}  // namespace

bool keypoints_agree(const cv::KeyPoint& reference, const cv::KeyPoint& candidate) {
  const float distance =
      std::hypot(reference.pt.x - candidate.pt.x, reference.pt.y - candidate.pt.y);
  if (distance > position_tolerance(reference))
    return false;
  if (std::fabs(candidate.size - reference.size) > kMaxSizeRatio * reference.size)
    return false;
  return angle_difference(reference.angle, candidate.angle) <= kMaxAngleDegrees;
}

Agreement compare_features(const std::vector<cv::KeyPoint>& reference,
                           const cv::Mat& reference_descriptors,
                           const std::vector<cv::KeyPoint>& candidate,
                           const cv::Mat& candidate_descriptors) {
  Agreement result;
  result.reference_count = static_cast<int>(reference.size());
  result.candidate_count = static_cast<int>(candidate.size());
  const bool with_descriptors = !reference_descriptors.empty() && !candidate_descriptors.empty();
  const cv::Mat ref_unit = with_descriptors ? unit_rows(reference_descriptors) : cv::Mat();
  const cv::Mat cand_unit = with_descriptors ? unit_rows(candidate_descriptors) : cv::Mat();

  std::vector<float> closest(reference.size(), std::numeric_limits<float>::infinity());
  std::vector<char> reference_matched(reference.size(), 0);
  for_each_nearby(reference, candidate, order_by_x(candidate), [&](int r, int c) {
    if (!keypoints_agree(reference[r], candidate[c]))
      return;
    reference_matched[r] = 1;
    if (with_descriptors)
      closest[r] =
          std::min(closest[r], static_cast<float>(cv::norm(ref_unit.row(r), cand_unit.row(c))));
  });
  std::vector<char> candidate_matched(candidate.size(), 0);
  for_each_nearby(candidate, reference, order_by_x(reference), [&](int c, int r) {
    if (keypoints_agree(reference[r], candidate[c]))
      candidate_matched[c] = 1;
  });

  const auto share = [](const std::vector<char>& flags) {
    if (flags.empty())
      return 1.0;
    return static_cast<double>(std::count(flags.begin(), flags.end(), 1)) / flags.size();
  };
  result.recall = share(reference_matched);
  result.precision = share(candidate_matched);

  std::vector<float> distances;
  for (float d : closest)
    if (std::isfinite(d))
      distances.push_back(d);
  if (!distances.empty()) {
    std::sort(distances.begin(), distances.end());
    result.median_descriptor_distance = distances[distances.size() / 2];
    result.p99_descriptor_distance = distances[(distances.size() - 1) * 99 / 100];
    result.max_descriptor_distance = distances.back();
  } else {
    result.median_descriptor_distance = std::numeric_limits<double>::infinity();
    result.p99_descriptor_distance = std::numeric_limits<double>::infinity();
    result.max_descriptor_distance = std::numeric_limits<double>::infinity();
  }
  return result;
}

std::vector<cv::KeyPoint> to_cv_keypoints(const Features& features) {
  std::vector<cv::KeyPoint> out;
  out.reserve(features.keypoints.size());
  for (const Keypoint& k : features.keypoints)
    out.emplace_back(k.x, k.y, k.size, k.angle, k.response, k.octave, k.class_id);
  return out;
}

cv::Mat to_cv_descriptors(const Features& features) {
  const int rows = features.descriptor_row_count();
  if (rows == 0)
    return cv::Mat();
  if (features.descriptor_format == DescriptorFormat::kUint8)
    return cv::Mat(rows, features.descriptor_size, CV_8U,
                   const_cast<uint8_t*>(features.byte_descriptors.data()))
        .clone();
  return cv::Mat(rows, features.descriptor_size, CV_32F,
                 const_cast<float*>(features.float_descriptors.data()))
      .clone();
}

}  // namespace gpusift::testing
