#include "gpusift/motion_fit.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "gpusift/motion_models.h"

namespace gpusift {

namespace {

using Matrix9 = std::array<double, 81>;

struct Centred {
  std::vector<Point2d> from, to;
  Point2d from_mean{0, 0}, to_mean{0, 0};
};

// The selected pairs about their centroids (better conditioned sums).
Centred centred_selection(const std::vector<PointPair>& pairs, const std::vector<uint8_t>& mask) {
  Centred c;
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (!mask[i])
      continue;
    c.from.push_back(from_point(pairs[i]));
    c.to.push_back(to_point(pairs[i]));
  }
  const double n = static_cast<double>(c.from.size());
  for (size_t i = 0; i < c.from.size(); ++i) {
    c.from_mean.x += c.from[i].x, c.from_mean.y += c.from[i].y;
    c.to_mean.x += c.to[i].x, c.to_mean.y += c.to[i].y;
  }
  if (n > 0) {
    c.from_mean = {c.from_mean.x / n, c.from_mean.y / n};
    c.to_mean = {c.to_mean.x / n, c.to_mean.y / n};
  }
  for (size_t i = 0; i < c.from.size(); ++i) {
    c.from[i] = {c.from[i].x - c.from_mean.x, c.from[i].y - c.from_mean.y};
    c.to[i] = {c.to[i].x - c.to_mean.x, c.to[i].y - c.to_mean.y};
  }
  return c;
}

// h = [a b; c d] on centred points, translated back.
void set_linear(const Centred& c, double a, double b, double cc, double d, double* h) {
  const double tx = c.to_mean.x - (a * c.from_mean.x + b * c.from_mean.y);
  const double ty = c.to_mean.y - (cc * c.from_mean.x + d * c.from_mean.y);
  set_matrix(h, a, b, tx, cc, d, ty, 0.0, 0.0, 1.0);
}

bool fit_translation(const Centred& c, double* h) {
  if (c.from.empty())
    return false;
  set_linear(c, 1.0, 0.0, 0.0, 1.0, h);
  return true;
}

bool fit_similarity(const Centred& c, double* h) {
  double norm = 0, dot = 0, cross = 0;
  for (size_t i = 0; i < c.from.size(); ++i) {
    norm += squared_norm(c.from[i]);
    dot += c.from[i].x * c.to[i].x + c.from[i].y * c.to[i].y;
    cross += c.from[i].x * c.to[i].y - c.from[i].y * c.to[i].x;
  }
  if (c.from.size() < 2 || !(norm > 0))
    return false;
  set_linear(c, dot / norm, -cross / norm, cross / norm, dot / norm, h);
  return true;
}

bool fit_affine(const Centred& c, double* h) {
  double sxx = 0, sxy = 0, syy = 0, ux = 0, uy = 0, vx = 0, vy = 0;
  for (size_t i = 0; i < c.from.size(); ++i) {
    const Point2d p = c.from[i], q = c.to[i];
    sxx += p.x * p.x, sxy += p.x * p.y, syy += p.y * p.y;
    ux += q.x * p.x, uy += q.x * p.y, vx += q.y * p.x, vy += q.y * p.y;
  }
  const double det = sxx * syy - sxy * sxy;
  if (c.from.size() < 3 || !(det > kDegenerateTolerance * (sxx + syy) * (sxx + syy)))
    return false;
  // [ux uy; vx vy] * inverse([sxx sxy; sxy syy])
  set_linear(c, (ux * syy - uy * sxy) / det, (uy * sxx - ux * sxy) / det,
             (vx * syy - vy * sxy) / det, (vy * sxx - vx * sxy) / det, h);
  return true;
}

// Hartley's normalisation: centroid to the origin, mean distance sqrt(2).
struct Normalisation {
  double scale, cx, cy;
  Point2d apply(Point2d p) const { return {(p.x - cx) * scale, (p.y - cy) * scale}; }
};

Normalisation normalisation_of(const std::vector<Point2d>& points) {
  double cx = 0, cy = 0, mean_distance = 0;
  for (const Point2d& p : points)
    cx += p.x, cy += p.y;
  cx /= static_cast<double>(points.size());
  cy /= static_cast<double>(points.size());
  for (const Point2d& p : points)
    mean_distance += std::sqrt((p.x - cx) * (p.x - cx) + (p.y - cy) * (p.y - cy));
  mean_distance /= static_cast<double>(points.size());
  return {mean_distance > 0 ? std::sqrt(2.0) / mean_distance : 1.0, cx, cy};
}

// Eigenvector of the smallest eigenvalue of a symmetric 9x9 matrix, by cyclic Jacobi rotations.
std::array<double, 9> smallest_eigenvector(Matrix9 a) {
  Matrix9 v{};
  for (int i = 0; i < 9; ++i)
    v[i * 9 + i] = 1.0;
  for (int sweep = 0; sweep < 60; ++sweep) {
    double off = 0;
    for (int p = 0; p < 9; ++p)
      for (int q = p + 1; q < 9; ++q)
        off += a[p * 9 + q] * a[p * 9 + q];
    if (off < 1e-30)
      break;
    for (int p = 0; p < 9; ++p) {
      for (int q = p + 1; q < 9; ++q) {
        const double apq = a[p * 9 + q];
        if (std::fabs(apq) < 1e-300)
          continue;
        const double theta = (a[q * 9 + q] - a[p * 9 + p]) / (2.0 * apq);
        const double t =
            (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double cs = 1.0 / std::sqrt(t * t + 1), sn = t * cs;
        for (int k = 0; k < 9; ++k) {  // columns p, q
          const double akp = a[k * 9 + p], akq = a[k * 9 + q];
          a[k * 9 + p] = cs * akp - sn * akq;
          a[k * 9 + q] = sn * akp + cs * akq;
        }
        for (int k = 0; k < 9; ++k) {  // rows p, q
          const double apk = a[p * 9 + k], aqk = a[q * 9 + k];
          a[p * 9 + k] = cs * apk - sn * aqk;
          a[q * 9 + k] = sn * apk + cs * aqk;
        }
        for (int k = 0; k < 9; ++k) {
          const double vkp = v[k * 9 + p], vkq = v[k * 9 + q];
          v[k * 9 + p] = cs * vkp - sn * vkq;
          v[k * 9 + q] = sn * vkp + cs * vkq;
        }
      }
    }
  }
  int smallest = 0;
  for (int i = 1; i < 9; ++i)
    if (a[i * 9 + i] < a[smallest * 9 + smallest])
      smallest = i;
  std::array<double, 9> e;
  for (int k = 0; k < 9; ++k)
    e[k] = v[k * 9 + smallest];
  return e;
}

// Algebraic fit on normalised coordinates (direct linear transform).
bool fit_homography_dlt(const std::vector<Point2d>& from, const std::vector<Point2d>& to,
                        double* h) {
  const Normalisation nf = normalisation_of(from), nt = normalisation_of(to);
  Matrix9 ata{};
  for (size_t i = 0; i < from.size(); ++i) {
    const Point2d p = nf.apply(from[i]), q = nt.apply(to[i]);
    const double rows[2][9] = {{p.x, p.y, 1, 0, 0, 0, -q.x * p.x, -q.x * p.y, -q.x},
                               {0, 0, 0, p.x, p.y, 1, -q.y * p.x, -q.y * p.y, -q.y}};
    for (const auto& r : rows)
      for (int a = 0; a < 9; ++a)
        for (int b = 0; b < 9; ++b)
          ata[a * 9 + b] += r[a] * r[b];
  }
  const std::array<double, 9> hn = smallest_eigenvector(ata);
  // h = inverse(T_to) * hn * T_from
  const double tf[9] = {nf.scale, 0, -nf.scale * nf.cx, 0, nf.scale, -nf.scale * nf.cy, 0, 0, 1};
  const double tt_inv[9] = {1 / nt.scale, 0, nt.cx, 0, 1 / nt.scale, nt.cy, 0, 0, 1};
  double tmp[9];
  multiply3(hn.data(), tf, tmp);
  multiply3(tt_inv, tmp, h);
  if (!(std::fabs(h[8]) > 1e-12 * std::fabs(h[0]) + 1e-300))
    return false;
  for (int i = 0; i < 9; ++i)
    h[i] /= h[8];
  return std::all_of(h, h + 9, [](double x) { return std::isfinite(x); });
}

double transfer_cost(const double* h, const std::vector<Point2d>& from,
                     const std::vector<Point2d>& to) {
  double cost = 0;
  for (size_t i = 0; i < from.size(); ++i) {
    const double w = h[6] * from[i].x + h[7] * from[i].y + h[8];
    const double ex = (h[0] * from[i].x + h[1] * from[i].y + h[2]) / w - to[i].x;
    const double ey = (h[3] * from[i].x + h[4] * from[i].y + h[5]) / w - to[i].y;
    cost += ex * ex + ey * ey;
  }
  return std::isfinite(cost) ? cost : INFINITY;
}

// Solves the symmetric positive definite n x n system a x = b in place (Cholesky); false when
// it is not positive definite.
bool solve_spd(std::vector<double> a, std::vector<double>* b, int n) {
  for (int j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (int k = 0; k < j; ++k)
      d -= a[j * n + k] * a[j * n + k];
    if (!(d > 0))
      return false;
    a[j * n + j] = std::sqrt(d);
    for (int i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (int k = 0; k < j; ++k)
        s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / a[j * n + j];
    }
  }
  std::vector<double>& x = *b;
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < i; ++k)
      x[i] -= a[i * n + k] * x[k];
    x[i] /= a[i * n + i];
  }
  for (int i = n - 1; i >= 0; --i) {
    for (int k = i + 1; k < n; ++k)
      x[i] -= a[k * n + i] * x[k];
    x[i] /= a[i * n + i];
  }
  return true;
}

// Levenberg-Marquardt on the reprojection error of the eight free entries (h[8] = 1): the
// algebraic fit weighs points by their distance from the centroid, the geometric one does not.
void refine_homography(const std::vector<Point2d>& from, const std::vector<Point2d>& to,
                       double* h) {
  double cost = transfer_cost(h, from, to);
  double lambda = 1e-3;
  for (int iteration = 0; iteration < 20 && cost > 0; ++iteration) {
    std::vector<double> jtj(64, 0.0), jte(8, 0.0);
    for (size_t i = 0; i < from.size(); ++i) {
      const double x = from[i].x, y = from[i].y;
      const double w = h[6] * x + h[7] * y + h[8];
      const double u = (h[0] * x + h[1] * y + h[2]) / w, v = (h[3] * x + h[4] * y + h[5]) / w;
      const double ju[8] = {x / w, y / w, 1 / w, 0, 0, 0, -u * x / w, -u * y / w};
      const double jv[8] = {0, 0, 0, x / w, y / w, 1 / w, -v * x / w, -v * y / w};
      const double eu = u - to[i].x, ev = v - to[i].y;
      for (int a = 0; a < 8; ++a) {
        jte[a] += ju[a] * eu + jv[a] * ev;
        for (int b = 0; b < 8; ++b)
          jtj[a * 8 + b] += ju[a] * ju[b] + jv[a] * jv[b];
      }
    }
    bool improved = false;
    while (!improved && lambda < 1e12) {
      std::vector<double> damped = jtj, step = jte;
      for (int a = 0; a < 8; ++a)
        damped[a * 8 + a] += lambda * jtj[a * 8 + a] + 1e-300;
      if (solve_spd(damped, &step, 8)) {
        double trial[9];
        for (int a = 0; a < 8; ++a)
          trial[a] = h[a] - step[a];
        trial[8] = 1.0;
        const double trial_cost = transfer_cost(trial, from, to);
        if (trial_cost < cost) {
          const double relative_gain = (cost - trial_cost) / cost;
          std::copy(trial, trial + 9, h);
          cost = trial_cost;
          lambda = std::max(lambda / 10, 1e-12);
          improved = true;
          if (relative_gain < 1e-12)
            return;
          continue;
        }
      }
      lambda *= 10;
    }
    if (!improved)
      return;
  }
}

bool fit_homography(const Centred& c, double* h) {
  if (c.from.size() < 4)
    return false;
  // Centring is the identity on the model's shape; fit on the pairs as given.
  std::vector<Point2d> from(c.from.size()), to(c.to.size());
  for (size_t i = 0; i < from.size(); ++i) {
    from[i] = {c.from[i].x + c.from_mean.x, c.from[i].y + c.from_mean.y};
    to[i] = {c.to[i].x + c.to_mean.x, c.to[i].y + c.to_mean.y};
  }
  if (!fit_homography_dlt(from, to, h))
    return false;
  refine_homography(from, to, h);
  return std::all_of(h, h + 9, [](double x) { return std::isfinite(x); });
}

}  // namespace

bool fit_motion(MotionModel model, const std::vector<PointPair>& pairs,
                const std::vector<uint8_t>& mask, double* h) {
  const Centred c = centred_selection(pairs, mask);
  switch (model) {
    case MotionModel::kTranslation:
      return fit_translation(c, h);
    case MotionModel::kSimilarity:
      return fit_similarity(c, h);
    case MotionModel::kAffine:
      return fit_affine(c, h);
    case MotionModel::kHomography:
      return fit_homography(c, h);
    case MotionModel::kNone:
      break;
  }
  return false;
}

}  // namespace gpusift
