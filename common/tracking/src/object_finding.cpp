// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/object_finding.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace gpusift::objects {

namespace {

struct Point {
  double x, y;
};

// w of the homogeneous image of (x, y).
double depth_of(const Matrix3& h, double x, double y) {
  return h[6] * x + h[7] * y + h[8];
}

// Twice the signed area of the outline; positive when it turns as the reference does on screen
// (top-left, top-right, bottom-right: clockwise with y down).
double signed_area2(const Outline& c) {
  double sum = 0.0;
  for (int i = 0; i < 4; ++i) {
    const int j = (i + 1) % 4;
    sum += c[2 * i] * c[2 * j + 1] - c[2 * j] * c[2 * i + 1];
  }
  return sum;
}

// Every corner turns the same way as the reference's: convex, not mirrored.
bool convex_and_unmirrored(const Outline& c) {
  for (int i = 0; i < 4; ++i) {
    const Point a{c[2 * i], c[2 * i + 1]};
    const Point b{c[2 * ((i + 1) % 4)], c[2 * ((i + 1) % 4) + 1]};
    const Point d{c[2 * ((i + 2) % 4)], c[2 * ((i + 2) % 4) + 1]};
    const double turn = (b.x - a.x) * (d.y - b.y) - (b.y - a.y) * (d.x - b.x);
    if (!(turn > 0.0))
      return false;
  }
  return true;
}

}  // namespace

bool project_reference_corners(const Matrix3& h, int reference_width, int reference_height,
                               Outline* corners) {
  const double right = reference_width - 1.0;
  const double bottom = reference_height - 1.0;
  const double xs[4] = {0.0, right, right, 0.0};
  const double ys[4] = {0.0, 0.0, bottom, bottom};
  for (int i = 0; i < 4; ++i) {
    const double w = depth_of(h, xs[i], ys[i]);
    const double x = (h[0] * xs[i] + h[1] * ys[i] + h[2]) / w;
    const double y = (h[3] * xs[i] + h[4] * ys[i] + h[5]) / w;
    if (w == 0.0 || !std::isfinite(x) || !std::isfinite(y))
      return false;
    (*corners)[2 * i] = x;
    (*corners)[2 * i + 1] = y;
  }
  return true;
}

const char* implausible_outline(const Matrix3& h, int reference_width, int reference_height) {
  const double right = reference_width - 1.0;
  const double bottom = reference_height - 1.0;
  // The corners and the centre: a plane that crosses the horizon inside the reference would
  // show one part of it behind the camera.
  const double depths[5] = {depth_of(h, 0.0, 0.0), depth_of(h, right, 0.0),
                            depth_of(h, right, bottom), depth_of(h, 0.0, bottom),
                            depth_of(h, right / 2.0, bottom / 2.0)};
  const bool in_front =
      std::all_of(std::begin(depths), std::end(depths), [](double w) { return w > 0.0; }) ||
      std::all_of(std::begin(depths), std::end(depths), [](double w) { return w < 0.0; });
  Outline corners;
  if (!in_front || !project_reference_corners(h, reference_width, reference_height, &corners))
    return "the reference would reach behind the camera";
  if (!convex_and_unmirrored(corners))
    return "the outline is not convex or is mirrored";
  const double area = signed_area2(corners) / 2.0;
  if (!(area >= kMinOutlineArea))
    return "the outline is too small";
  const double reference_area = std::max(right * bottom, 1.0);
  const double scale = area / reference_area;
  if (scale > kMaxAreaScale || scale < 1.0 / kMaxAreaScale)
    return "the outline's size is implausible";
  return nullptr;
}

bool outline_pixel_box(const Outline& corners, double sx, double sy, int frame_width,
                       int frame_height, PixelBox* box) {
  double x0 = corners[0] * sx, x1 = x0, y0 = corners[1] * sy, y1 = y0;
  for (int i = 1; i < 4; ++i) {
    x0 = std::min(x0, corners[2 * i] * sx);
    x1 = std::max(x1, corners[2 * i] * sx);
    y0 = std::min(y0, corners[2 * i + 1] * sy);
    y1 = std::max(y1, corners[2 * i + 1] * sy);
  }
  // Clipped in double first: a far corner of a strong perspective can pass the int range.
  const double left = std::max(std::floor(x0), 0.0);
  const double right = std::min(std::ceil(x1), frame_width - 1.0);
  const double top = std::max(std::floor(y0), 0.0);
  const double bottom = std::min(std::ceil(y1), frame_height - 1.0);
  if (!(left <= right && top <= bottom))
    return false;
  box->x = static_cast<int>(left);
  box->y = static_cast<int>(top);
  box->width = static_cast<int>(right - left) + 1;
  box->height = static_cast<int>(bottom - top) + 1;
  return true;
}

void ObjectFinder::find(const FeatureSet& reference, int reference_width, int reference_height,
                        const FeatureSet& frame, const FinderParams& params, Detection* out) {
  // A fresh detection that keeps the support list's storage from frame to frame.
  std::vector<int> storage = std::move(out->supporting_keypoints);
  storage.clear();
  *out = Detection{};
  out->supporting_keypoints = std::move(storage);
  const int needed = std::max(params.min_inliers, 4);  // a homography's minimal sample
  if (reference.count < needed || frame.count < needed) {
    out->reason = "too few keypoints";
    return;
  }
  matcher_->match(reference.descriptors, frame.descriptors, params.match, &matches_);
  out->matches = static_cast<int>(matches_.size());
  if (out->matches < needed) {
    out->reason = "too few matches";
    return;
  }
  pairs_.clear();
  for (const Match& m : matches_) {
    const Keypoint& from = reference.keypoints[m.query];
    const Keypoint& to = frame.keypoints[m.train];
    pairs_.push_back(PointPair{from.x, from.y, to.x, to.y});
  }
  RansacParams ransac;
  ransac.model = MotionModel::kHomography;
  ransac.threshold = params.ransac_threshold;
  ransac.iterations = params.ransac_iterations;
  const MotionEstimate estimate = matcher_->estimate_motion(pairs_, ransac);
  if (!estimate.found) {
    out->reason = "no homography fits the matches";
    return;
  }
  out->inliers = estimate.inliers;
  std::copy(std::begin(estimate.matrix), std::end(estimate.matrix), out->homography.begin());
  if (out->inliers < params.min_inliers) {
    out->reason = "too few inliers";
    return;
  }
  if (const char* why = implausible_outline(out->homography, reference_width, reference_height)) {
    out->reason = why;
    return;
  }
  out->found =
      project_reference_corners(out->homography, reference_width, reference_height, &out->corners);
  if (!out->found)
    return;
  std::vector<int>& support = out->supporting_keypoints;
  for (size_t i = 0; i < matches_.size(); ++i)
    if (estimate.inlier_mask[i])
      support.push_back(matches_[i].train);
  // Two reference keypoints may match one frame keypoint: each is named once.
  std::sort(support.begin(), support.end());
  support.erase(std::unique(support.begin(), support.end()), support.end());
}

}  // namespace gpusift::objects
