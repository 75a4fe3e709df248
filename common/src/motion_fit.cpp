// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/motion_fit.h"
#include "cpu_isa.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "gpusift/motion_models.h"

namespace gpusift {

namespace {

using Matrix9 = std::array<double, 81>;

enum Weight { kOne, kU, kV, kUV2 };
enum Product { kXX, kXY, kX, kYY, kY, kN };

// Eigenvector of the smallest eigenvalue of a symmetric 9x9 matrix, by cyclic Jacobi rotations.
std::array<double, 9> smallest_eigenvector(Matrix9 a) {
  Matrix9 v{};
  for (int i = 0; i < 9; ++i)
    v[i * 9 + i] = 1.0;
  double scale = 0;
  for (double x : a)
    scale = std::max(scale, std::fabs(x));
  // Rotations converge quadratically; off-diagonal entries this small relative to the matrix no
  // longer move the eigenvector of interest.
  const double negligible = 1e-15 * scale;
  for (int sweep = 0; sweep < 30; ++sweep) {
    double off = 0;
    for (int p = 0; p < 9; ++p)
      for (int q = p + 1; q < 9; ++q)
        off = std::max(off, std::fabs(a[p * 9 + q]));
    if (off <= negligible)
      break;
    for (int p = 0; p < 9; ++p) {
      for (int q = p + 1; q < 9; ++q) {
        const double apq = a[p * 9 + q];
        if (std::fabs(apq) <= 1e-3 * negligible)
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

// The same by inverse iteration on a Cholesky factor: a few triangular solves instead of many
// rotations, when the smallest eigenvalue is well apart from the others (a homography fitted to
// its inliers). False, for the Jacobi method to take over, when the factor breaks down (a nearly
// singular matrix) or the iteration does not settle.
bool smallest_eigenvector_by_inverse_iteration(const Matrix9& a, std::array<double, 9>* e) {
  constexpr int kMaxIterations = 8;
  constexpr double kSettled = 1e-13;
  double scale = 0;
  for (double x : a)
    scale = std::max(scale, std::fabs(x));
  Matrix9 l{};  // lower triangle: a = l l^T
  for (int j = 0; j < 9; ++j) {
    double d = a[j * 9 + j];
    for (int k = 0; k < j; ++k)
      d -= l[j * 9 + k] * l[j * 9 + k];
    if (!(d > 1e-14 * scale))
      return false;
    const double pivot = std::sqrt(d);
    l[j * 9 + j] = pivot;
    for (int i = j + 1; i < 9; ++i) {
      double s = a[i * 9 + j];
      for (int k = 0; k < j; ++k)
        s -= l[i * 9 + k] * l[j * 9 + k];
      l[i * 9 + j] = s / pivot;
    }
  }
  std::array<double, 9> x;
  x.fill(1.0 / 3.0);
  for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
    std::array<double, 9> y, z;
    for (int i = 0; i < 9; ++i) {  // l y = x
      double s = x[i];
      for (int k = 0; k < i; ++k)
        s -= l[i * 9 + k] * y[k];
      y[i] = s / l[i * 9 + i];
    }
    for (int i = 8; i >= 0; --i) {  // l^T z = y
      double s = y[i];
      for (int k = i + 1; k < 9; ++k)
        s -= l[k * 9 + i] * z[k];
      z[i] = s / l[i * 9 + i];
    }
    double norm = 0, dot = 0;
    for (int i = 0; i < 9; ++i)
      norm += z[i] * z[i];
    norm = std::sqrt(norm);
    if (!(norm > 0) || !std::isfinite(norm))
      return false;
    for (int i = 0; i < 9; ++i) {
      z[i] /= norm;
      dot += z[i] * x[i];
    }
    double change = 0;
    for (int i = 0; i < 9; ++i)
      change = std::max(change, std::fabs(z[i] - (dot < 0 ? -x[i] : x[i])));
    x = z;
    if (iteration > 0 && change < kSettled) {
      *e = x;
      return true;
    }
  }
  return false;
}

bool finite_matrix(const double* h) {
  return std::all_of(h, h + 9, [](double x) { return std::isfinite(x); });
}

}  // namespace

MotionSums::MotionSums(double from_x, double from_y, double to_x, double to_y)
    : from_x_(from_x), from_y_(from_y), to_x_(to_x), to_y_(to_y) {}

MotionSums::MotionSums(const double* reference, const double* sums)
    : MotionSums(reference[0], reference[1], reference[2], reference[3]) {
  for (int k = 0; k < 6; ++k)
    for (int w = 0; w < 4; ++w)
      sums_[k][w] = sums[k * 4 + w];
}

namespace {

// Four doubles, one vector of AVX2 (two of SSE2); element-wise, so every lane rounds as scalar
// code would.
typedef double Double4 __attribute__((vector_size(32)));

struct Accumulator {
  Double4 sums[6] = {};
  double from_x, from_y, to_x, to_y;

  void add(const PointPair& pair) {
    const double x = pair.from_x - from_x, y = pair.from_y - from_y;
    const double u = pair.to_x - to_x, v = pair.to_y - to_y;
    const Double4 weights = {1.0, u, v, u * u + v * v};
    const double products[6] = {x * x, x * y, x, y * y, y, 1.0};
    for (int k = 0; k < 6; ++k)
      sums[k] += weights * products[k];
  }
};

GPUSIFT_CLONES_AVX2 void accumulate(const PointPair* pairs, const uint32_t* indices, size_t count,
                                    Accumulator* a) {
  for (size_t i = 0; i < count; ++i)
    a->add(pairs[indices ? indices[i] : i]);
}

}  // namespace

void MotionSums::add(const PointPair* pairs, size_t count) {
  Accumulator a{{}, from_x_, from_y_, to_x_, to_y_};
  accumulate(pairs, nullptr, count, &a);
  for (int k = 0; k < 6; ++k)
    for (int w = 0; w < 4; ++w)
      sums_[k][w] += a.sums[k][w];
}

void MotionSums::add(const std::vector<PointPair>& pairs, const std::vector<uint32_t>& indices) {
  Accumulator a{{}, from_x_, from_y_, to_x_, to_y_};
  accumulate(pairs.data(), indices.data(), indices.size(), &a);
  for (int k = 0; k < 6; ++k)
    for (int w = 0; w < 4; ++w)
      sums_[k][w] += a.sums[k][w];
}

bool MotionSums::solve(MotionModel model, double* h) const {
  const double n = sums_[kN][kOne];
  if (n < minimal_sample_size(model) || model == MotionModel::kNone)
    return false;
  // Means of the relative coordinates, and sums about them.
  const double mx = sums_[kX][kOne] / n, my = sums_[kY][kOne] / n;
  const double mu = sums_[kN][kU] / n, mv = sums_[kN][kV] / n;
  const double sxx = sums_[kXX][kOne] - n * mx * mx, sxy = sums_[kXY][kOne] - n * mx * my;
  const double syy = sums_[kYY][kOne] - n * my * my;
  const double ux = sums_[kX][kU] - n * mu * mx, uy = sums_[kY][kU] - n * mu * my;
  const double vx = sums_[kX][kV] - n * mv * mx, vy = sums_[kY][kV] - n * mv * my;
  // The linear part [a b; c d] about the means, back in the caller's coordinates.
  auto set_linear = [&](double a, double b, double c, double d) {
    const double fx = from_x_ + mx, fy = from_y_ + my, tx = to_x_ + mu, ty = to_y_ + mv;
    set_matrix(h, a, b, tx - (a * fx + b * fy), c, d, ty - (c * fx + d * fy), 0.0, 0.0, 1.0);
    return finite_matrix(h);
  };
  switch (model) {
    case MotionModel::kTranslation:
      return set_linear(1.0, 0.0, 0.0, 1.0);
    case MotionModel::kSimilarity: {
      const double norm = sxx + syy;
      if (!(norm > 0))
        return false;
      const double c = (ux + vy) / norm, s = (vx - uy) / norm;
      return set_linear(c, -s, s, c);
    }
    case MotionModel::kAffine: {
      const double det = sxx * syy - sxy * sxy;
      if (!(det > kDegenerateTolerance * (sxx + syy) * (sxx + syy)))
        return false;
      // [ux uy; vx vy] * inverse([sxx sxy; sxy syy])
      return set_linear((ux * syy - uy * sxy) / det, (uy * sxx - ux * sxy) / det,
                        (vx * syy - vy * sxy) / det, (vy * sxx - vx * sxy) / det);
    }
    case MotionModel::kHomography:
    case MotionModel::kNone:
      break;
  }
  // The direct linear transform on normalised coordinates (Hartley's, with the reference point
  // as origin and root-mean-square distance sqrt(2)). Each pair adds the rows [p, 0, -u p] and
  // [0, p, -v p] of A (p = (x, y, 1)), so A^T A is made of the four sums of p p^T weighted by 1,
  // u, v and u^2 + v^2; the normalising scales multiply them here.
  const double from_spread = sums_[kXX][kOne] + sums_[kYY][kOne];
  const double to_spread = sums_[kN][kUV2];
  if (!(from_spread > 0) || !(to_spread > 0))
    return false;
  const double sf = std::sqrt(2.0 * n / from_spread), st = std::sqrt(2.0 * n / to_spread);
  const double to_power[4] = {1.0, st, st, st * st};
  const int product_of[3][3] = {{kXX, kXY, kX}, {kXY, kYY, kY}, {kX, kY, kN}};
  Matrix9 ata{};
  auto put = [&](int block_row, int block_col, int w, double sign) {
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        const double from_power = (r < 2 ? sf : 1.0) * (c < 2 ? sf : 1.0);
        const double value = sign * sums_[product_of[r][c]][w] * from_power * to_power[w];
        ata[(block_row * 3 + r) * 9 + block_col * 3 + c] = value;
        ata[(block_col * 3 + c) * 9 + block_row * 3 + r] = value;
      }
  };
  put(0, 0, kOne, 1.0);
  put(1, 1, kOne, 1.0);
  put(0, 2, kU, -1.0);
  put(1, 2, kV, -1.0);
  put(2, 2, kUV2, 1.0);
  std::array<double, 9> hn;
  if (!smallest_eigenvector_by_inverse_iteration(ata, &hn))
    hn = smallest_eigenvector(ata);
  // h = inverse(T_to) * hn * T_from
  const double tf[9] = {sf, 0, -sf * from_x_, 0, sf, -sf * from_y_, 0, 0, 1};
  const double tt_inv[9] = {1 / st, 0, to_x_, 0, 1 / st, to_y_, 0, 0, 1};
  double tmp[9];
  multiply3(hn.data(), tf, tmp);
  multiply3(tt_inv, tmp, h);
  if (!(std::fabs(h[8]) > 0))
    return false;
  const double last = h[8];
  for (int i = 0; i < 9; ++i)
    h[i] /= last;
  return finite_matrix(h);
}

bool fit_motion(MotionModel model, const std::vector<PointPair>& pairs,
                const std::vector<uint8_t>& mask, double* h) {
  double n = 0, fx = 0, fy = 0, tx = 0, ty = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (!mask[i])
      continue;
    n += 1, fx += pairs[i].from_x, fy += pairs[i].from_y, tx += pairs[i].to_x, ty += pairs[i].to_y;
  }
  if (n == 0)
    return false;
  std::vector<uint32_t> selected;
  for (size_t i = 0; i < pairs.size(); ++i)
    if (mask[i])
      selected.push_back(static_cast<uint32_t>(i));
  MotionSums sums(fx / n, fy / n, tx / n, ty / n);
  sums.add(pairs, selected);
  return sums.solve(model, h);
}

}  // namespace gpusift
