// SPDX-License-Identifier: LGPL-2.1-or-later
// Minimal solvers and the inlier test of RANSAC, one definition for the CPU backend and the CUDA
// kernels. All in double, every operation rounded on its own (no fused multiply-add on either
// side), so a hypothesis and its inlier count come out bit for bit the same on both.
#pragma once

#include "gpusift/hostdevice.h"
#include "gpusift/match_types.h"
#include "gpusift/motion_sampling.h"

namespace gpusift {

// Pairs a hypothesis of `model` is solved from; 0 for kNone.
GPUSIFT_HD int minimal_sample_size(MotionModel model) {
  switch (model) {
    case MotionModel::kTranslation:
      return 1;
    case MotionModel::kSimilarity:
      return 2;
    case MotionModel::kAffine:
      return 3;
    case MotionModel::kHomography:
      return 4;
    case MotionModel::kNone:
      break;
  }
  return 0;
}

struct Point2d {
  double x, y;
};

GPUSIFT_HD Point2d from_point(const PointPair& pair) {
  return Point2d{pair.from_x, pair.from_y};
}
GPUSIFT_HD Point2d to_point(const PointPair& pair) {
  return Point2d{pair.to_x, pair.to_y};
}

// Relative size under which two points count as one and three points as collinear.
inline constexpr double kDegenerateTolerance = 1e-6;

GPUSIFT_HD double squared_norm(Point2d a) {
  return a.x * a.x + a.y * a.y;
}

GPUSIFT_HD bool distinct_points(Point2d a, Point2d b) {
  const Point2d d{b.x - a.x, b.y - a.y};
  const double scale = max_of(squared_norm(a), squared_norm(b));
  return squared_norm(d) > kDegenerateTolerance * kDegenerateTolerance * scale;
}

// Twice the signed area of triangle (o, a, b).
GPUSIFT_HD double signed_area2(Point2d o, Point2d a, Point2d b) {
  return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

// False for three collinear (or repeated) points.
GPUSIFT_HD bool spans_plane(Point2d o, Point2d a, Point2d b) {
  const Point2d u{a.x - o.x, a.y - o.y}, v{b.x - o.x, b.y - o.y};
  const double area2 = u.x * v.y - u.y * v.x;
  return fabs(area2) > kDegenerateTolerance * (squared_norm(u) + squared_norm(v));
}

GPUSIFT_HD void set_matrix(double* h, double h0, double h1, double h2, double h3, double h4,
                           double h5, double h6, double h7, double h8) {
  h[0] = h0, h[1] = h1, h[2] = h2, h[3] = h3, h[4] = h4, h[5] = h5, h[6] = h6, h[7] = h7, h[8] = h8;
}

// m[0..9) = a * b (3x3, row-major).
GPUSIFT_HD void multiply3(const double* a, const double* b, double* m) {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      m[r * 3 + c] = (a[r * 3] * b[c] + a[r * 3 + 1] * b[3 + c]) + a[r * 3 + 2] * b[6 + c];
}

// The adjugate: the inverse times the determinant, defined for singular matrices too.
GPUSIFT_HD void adjugate3(const double* m, double* adj) {
  set_matrix(adj, m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
             m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
             m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3]);
}

// Divides by the entry of largest magnitude, so that hypotheses have comparable scale.
GPUSIFT_HD void normalise_by_largest(double* h) {
  double largest = 0.0;
  for (int i = 0; i < 9; ++i)
    largest = max_of(largest, fabs(h[i]));
  for (int i = 0; i < 9; ++i)
    h[i] = h[i] / largest;
}

GPUSIFT_HD bool solve_translation(const PointPair& a, double* h) {
  set_matrix(h, 1.0, 0.0, static_cast<double>(a.to_x) - a.from_x, 0.0, 1.0,
             static_cast<double>(a.to_y) - a.from_y, 0.0, 0.0, 1.0);
  return true;
}

// Rotation, uniform scale and translation: the complex ratio (q1 - q0) / (p1 - p0).
GPUSIFT_HD bool solve_similarity(const PointPair& a, const PointPair& b, double* h) {
  const Point2d p0 = from_point(a), p1 = from_point(b), q0 = to_point(a), q1 = to_point(b);
  if (!distinct_points(p0, p1) || !distinct_points(q0, q1))
    return false;
  const Point2d dp{p1.x - p0.x, p1.y - p0.y}, dq{q1.x - q0.x, q1.y - q0.y};
  const double norm = squared_norm(dp);
  const double c = (dq.x * dp.x + dq.y * dp.y) / norm;
  const double s = (dq.y * dp.x - dq.x * dp.y) / norm;
  set_matrix(h, c, -s, q0.x - (c * p0.x - s * p0.y), s, c, q0.y - (s * p0.x + c * p0.y), 0.0, 0.0,
             1.0);
  return true;
}

// The affine map taking (0, 0), (1, 0), (0, 1) onto o, a, b.
GPUSIFT_HD void unit_triangle_to(Point2d o, Point2d a, Point2d b, double* m) {
  set_matrix(m, a.x - o.x, b.x - o.x, o.x, a.y - o.y, b.y - o.y, o.y, 0.0, 0.0, 1.0);
}

GPUSIFT_HD bool solve_affine(const PointPair& a, const PointPair& b, const PointPair& c,
                             double* h) {
  const Point2d p0 = from_point(a), p1 = from_point(b), p2 = from_point(c);
  const Point2d q0 = to_point(a), q1 = to_point(b), q2 = to_point(c);
  if (!spans_plane(p0, p1, p2) || !spans_plane(q0, q1, q2))
    return false;
  double from[9], to[9], from_adj[9];
  unit_triangle_to(p0, p1, p2, from);
  unit_triangle_to(q0, q1, q2, to);
  adjugate3(from, from_adj);
  multiply3(to, from_adj, h);
  const double det = h[8];  // the adjugate's (2, 2) entry is the determinant of `from`
  for (int i = 0; i < 6; ++i)
    h[i] = h[i] / det;
  h[6] = 0.0, h[7] = 0.0, h[8] = 1.0;
  return true;
}

// A multiple of the projective map taking the unit square's corners (0, 0), (1, 0), (1, 1),
// (0, 1) onto p[0..4): solving for the map's bottom row (g, h) from the fourth corner, all
// scaled by the determinant of that 2x2 system so that there is no division. The determinant is
// non-zero when p[1], p[2], p[3] are not collinear.
GPUSIFT_HD void unit_square_to(const Point2d* p, double* m) {
  const double sx = ((p[0].x - p[1].x) + p[2].x) - p[3].x;
  const double sy = ((p[0].y - p[1].y) + p[2].y) - p[3].y;
  const double dx1 = p[1].x - p[2].x, dx2 = p[3].x - p[2].x;
  const double dy1 = p[1].y - p[2].y, dy2 = p[3].y - p[2].y;
  const double det = dx1 * dy2 - dx2 * dy1;
  const double g = sx * dy2 - dx2 * sy;
  const double k = dx1 * sy - sx * dy1;
  set_matrix(m, p[1].x * (g + det) - p[0].x * det, p[3].x * (k + det) - p[0].x * det, p[0].x * det,
             p[1].y * (g + det) - p[0].y * det, p[3].y * (k + det) - p[0].y * det, p[0].y * det, g,
             k, det);
}

GPUSIFT_HD bool same_turn(double a, double b) {
  return (a > 0.0) == (b > 0.0);
}

// Four points of which no three are collinear, in both images, and whose triangles keep their
// orientation (a homography that flips one maps part of the image through infinity).
GPUSIFT_HD bool homography_sample_usable(const Point2d* p, const Point2d* q) {
  const int triples[4][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};
  for (const auto& t : triples) {
    if (!spans_plane(p[t[0]], p[t[1]], p[t[2]]) || !spans_plane(q[t[0]], q[t[1]], q[t[2]]))
      return false;
    if (!same_turn(signed_area2(p[t[0]], p[t[1]], p[t[2]]),
                   signed_area2(q[t[0]], q[t[1]], q[t[2]])))
      return false;
  }
  return true;
}

GPUSIFT_HD bool solve_homography(const PointPair* const* sample, double* h) {
  Point2d p[4], q[4];
  for (int i = 0; i < 4; ++i) {
    p[i] = from_point(*sample[i]);
    q[i] = to_point(*sample[i]);
  }
  if (!homography_sample_usable(p, q))
    return false;
  double from[9], to[9], from_adj[9];
  unit_square_to(p, from);
  unit_square_to(q, to);
  adjugate3(from, from_adj);
  multiply3(to, from_adj, h);
  normalise_by_largest(h);
  return true;
}

// The model through the pairs sample[0..minimal_sample_size(model)); false when they are
// degenerate for it.
GPUSIFT_HD bool solve_minimal(MotionModel model, const PointPair* const* sample, double* h) {
  switch (model) {
    case MotionModel::kTranslation:
      return solve_translation(*sample[0], h);
    case MotionModel::kSimilarity:
      return solve_similarity(*sample[0], *sample[1], h);
    case MotionModel::kAffine:
      return solve_affine(*sample[0], *sample[1], *sample[2], h);
    case MotionModel::kHomography:
      return solve_homography(sample, h);
    case MotionModel::kNone:
      break;
  }
  return false;
}

// Hypothesis `iteration` of a RANSAC run over pairs[0..count); false when its sample could not
// be drawn or is degenerate.
GPUSIFT_HD bool ransac_hypothesis(const PointPair* pairs, int count, MotionModel model,
                                  uint64_t seed, int iteration, double* h) {
  const int size = minimal_sample_size(model);
  if (size == 0 || count < size)
    return false;
  int indices[kMaxMinimalSample];
  if (!draw_minimal_sample(seed, iteration, size, count, indices))
    return false;
  const PointPair* sample[kMaxMinimalSample];
  for (int i = 0; i < size; ++i)
    sample[i] = &pairs[indices[i]];
  return solve_minimal(model, sample, h);
}

GPUSIFT_HD double threshold_squared(float threshold) {
  return static_cast<double>(threshold) * static_cast<double>(threshold);
}

// Reprojection error below the threshold, without the division by w: |H from - w to|^2 <
// threshold^2 w^2. A point that H sends to infinity (w = 0) is never an inlier.
GPUSIFT_HD bool is_inlier(const double* h, const PointPair& pair, double threshold_sq) {
  const double x = pair.from_x, y = pair.from_y;
  const double w = (h[6] * x + h[7] * y) + h[8];
  const double ex = ((h[0] * x + h[1] * y) + h[2]) - pair.to_x * w;
  const double ey = ((h[3] * x + h[4] * y) + h[5]) - pair.to_y * w;
  return ex * ex + ey * ey < threshold_sq * (w * w);
}

}  // namespace gpusift
