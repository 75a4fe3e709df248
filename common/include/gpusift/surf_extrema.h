// SPDX-License-Identifier: LGPL-2.1-or-later
// Maxima of the Hessian determinant over 3x3x3 samples and their quadratic interpolation
// (OpenCV's findMaximaInLayer and interpolateKeypoint, after Brown and Lowe 2002).
#pragma once

#include "gpusift/hostdevice.h"
#include "gpusift/image_view.h"
#include "gpusift/keypoint.h"
#include "gpusift/surf_hessian.h"

namespace gpusift {

// Determinant samples of three consecutive layers of one octave, on the octave's sample grid.
struct DeterminantStack {
  FloatImageView below, here, above;
};

// Rows and columns of the middle layer whose 3x3x3 neighbourhood lies on valid samples of all
// three layers; empty when the layer above does not fit the frame.
struct SurfSearchRange {
  int row_begin, row_end, col_begin, col_end;

  GPUSIFT_HD bool empty() const { return row_begin >= row_end || col_begin >= col_end; }
};

GPUSIFT_HD SurfSearchRange surf_search_range(const SurfLayerGrid& below, const SurfLayerGrid& here,
                                             const SurfLayerGrid& above) {
  SurfSearchRange r;
  r.row_begin = max_of(max_of(below.row_begin, here.row_begin), above.row_begin) + 1;
  r.col_begin = max_of(max_of(below.col_begin, here.col_begin), above.col_begin) + 1;
  r.row_end = min_of(min_of(below.row_end, here.row_end), above.row_end) - 1;
  r.col_end = min_of(min_of(below.col_end, here.col_end), above.col_end) - 1;
  return r;
}

// The sample exceeds the threshold and, strictly, its 26 neighbours. All 27 samples are read
// before any is compared: on the GPU the reads then overlap instead of waiting one by one.
GPUSIFT_HD bool is_determinant_maximum(const DeterminantStack& d, int row, int col,
                                       float threshold) {
  float below[9], here[9], above[9];
  for (int k = 0; k < 9; ++k) {
    const int r = row + k / 3 - 1, c = col + k % 3 - 1;
    below[k] = d.below.at(r, c);
    here[k] = d.here.at(r, c);
    above[k] = d.above.at(r, c);
  }
  const float value = here[4];
  bool maximum = value > threshold;
  for (int k = 0; k < 9; ++k)
    maximum = maximum && value > below[k] && value > above[k] && (k == 4 || value > here[k]);
  return maximum;
}

// Offset of the fitted maximum from the sample, in samples (x, y) and layers (s).
struct SurfOffset {
  float x, y, s;
};

// One Newton step on the 3x3x3 samples. False, as OpenCV, when the Hessian is singular or the
// maximum lies more than one sample (or layer) away.
GPUSIFT_HD bool interpolate_maximum(const DeterminantStack& d, int r, int c, SurfOffset* out) {
  const FloatImageView &p = d.below, &h = d.here, &n = d.above;
  const float v2 = 2.f * h.at(r, c);
  const float bx = -(h.at(r, c + 1) - h.at(r, c - 1)) * 0.5f;
  const float by = -(h.at(r + 1, c) - h.at(r - 1, c)) * 0.5f;
  const float bs = -(n.at(r, c) - p.at(r, c)) * 0.5f;
  const float axx = h.at(r, c - 1) - v2 + h.at(r, c + 1);
  const float ayy = h.at(r - 1, c) - v2 + h.at(r + 1, c);
  const float ass = p.at(r, c) - v2 + n.at(r, c);
  const float axy =
      (h.at(r + 1, c + 1) - h.at(r + 1, c - 1) - h.at(r - 1, c + 1) + h.at(r - 1, c - 1)) * 0.25f;
  const float axs = (n.at(r, c + 1) - n.at(r, c - 1) - p.at(r, c + 1) + p.at(r, c - 1)) * 0.25f;
  const float ays = (n.at(r + 1, c) - n.at(r - 1, c) - p.at(r + 1, c) + p.at(r - 1, c)) * 0.25f;

  // Cramer's rule on the symmetric system.
  const float m00 = ayy * ass - ays * ays;
  const float m01 = axs * ays - axy * ass;
  const float m02 = axy * ays - axs * ayy;
  const float det = axx * m00 + axy * m01 + axs * m02;
  if (det == 0.f)
    return false;
  const float inv = 1.f / det;
  const float x = inv * (bx * m00 + by * m01 + bs * m02);
  const float y = inv * (bx * m01 + by * (axx * ass - axs * axs) + bs * (axs * axy - axx * ays));
  const float s = inv * (bx * m02 + by * (axy * axs - axx * ays) + bs * (axx * ayy - axy * axy));
  const bool moved = x != 0.f || y != 0.f || s != 0.f;
  if (!(moved && fabsf(x) <= 1.f && fabsf(y) <= 1.f && fabsf(s) <= 1.f))
    return false;
  out->x = x;
  out->y = y;
  out->s = s;
  return true;
}

// The keypoint of the maximum at sample (row, col) of `grid`, a middle layer of `octave`.
// OpenCV's conventions: size is the interpolated filter size rounded to an integer, response
// the determinant at the sample, octave the plain octave index, class_id the Laplacian's sign.
GPUSIFT_HD Keypoint surf_keypoint(const SurfLayerGrid& grid, int octave, int row, int col,
                                  const SurfOffset& offset, float det, float trace) {
  const int size_step = kSurfFilterSizeStep * grid.step;
  Keypoint k;
  k.x = grid.centre(col) + offset.x * static_cast<float>(grid.step);
  k.y = grid.centre(row) + offset.y * static_cast<float>(grid.step);
  k.size = static_cast<float>(
      round_to_int(static_cast<float>(grid.size) + offset.s * static_cast<float>(size_step)));
  k.angle = -1.f;
  k.response = det;
  k.octave = octave;
  k.class_id = laplacian_sign(trace);
  return k;
}

}  // namespace gpusift
