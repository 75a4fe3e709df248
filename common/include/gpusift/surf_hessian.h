// SPDX-License-Identifier: LGPL-2.1-or-later
// The box-filter Hessian of SURF and the sampling grid of its layers (OpenCV's
// calcLayerDetAndTrace and fastHessianDetector).
#pragma once

#include "gpusift/hostdevice.h"
#include "gpusift/surf_integral.h"

namespace gpusift {

inline constexpr int kSurfBaseFilterSize = 9;  // filter of the first layer of the first octave
inline constexpr int kSurfFilterSizeStep = 6;  // between layers, times the octave's sample step
// det = Dxx Dyy - (w Dxy)^2. Bay et al. derive w = 0.9 for lobe *sums*; OpenCV divides each lobe
// by its own area but kept 0.9, which weighs Dxy^2 2.8 times too much: the determinant of a
// quadratic image, 81 (f_xx f_yy - 2.56 f_xy^2) with the 9x9 filter, then changes with its
// rotation, and so do the maxima. A Dxy lobe has 3/5 of a Dxx lobe's area, so the paper's
// weight in OpenCV's units is 0.9 * 3/5 = 0.54. Where Dxy vanishes, as at the centre of a round
// blob, the determinant equals OpenCV's, so hessian_threshold keeps its meaning.
inline constexpr float kSurfDxyWeightSquared = 0.54f * 0.54f;

// Layer `layer` (0 .. n_octave_layers + 1) of octave `octave`.
GPUSIFT_HD int surf_filter_size(int octave, int layer) {
  return (kSurfBaseFilterSize + kSurfFilterSizeStep * layer) << octave;
}

// Octave o samples every 2^o pixels.
GPUSIFT_HD int surf_sample_step(int octave) {
  return 1 << octave;
}

// The sample grid of one layer: sample (i, j) applies the filter with its top-left corner at
// pixel (step * (i - margin), step * (j - margin)) and stands for the filter's centre,
// top-left + (size - 1) / 2. OpenCV's integer division in `margin` makes that centre
// step * i + (step - 1) / 2 for every layer of an octave, so layers align sample for sample.
// Samples whose filter lies inside the frame are rows [row_begin, row_end) and columns
// [col_begin, col_end); the grid itself has (height / step) x (width / step) samples.
struct SurfLayerGrid {
  int size, step, margin;
  int row_begin, row_end, col_begin, col_end;

  GPUSIFT_HD int top(int i) const { return step * (i - margin); }
  GPUSIFT_HD int left(int j) const { return step * (j - margin); }
  GPUSIFT_HD float centre(int index) const {
    return static_cast<float>(step * (index - margin)) + static_cast<float>(size - 1) * 0.5f;
  }
};

GPUSIFT_HD SurfLayerGrid surf_layer_grid(int octave, int layer, int frame_width, int frame_height) {
  SurfLayerGrid g;
  g.size = surf_filter_size(octave, layer);
  g.step = surf_sample_step(octave);
  g.margin = (g.size / 2) / g.step;
  g.row_begin = g.col_begin = g.margin;
  g.row_end = frame_height < g.size ? g.margin : g.margin + (frame_height - g.size) / g.step + 1;
  g.col_end = frame_width < g.size ? g.margin : g.margin + (frame_width - g.size) / g.step + 1;
  return g;
}

// Dxx, Dyy and Dxy of a filter, scaled from the 9x9 one with OpenCV's rounding. Their boxes share
// edges: Dxx is one strip of rows cut into three lobes at four columns, Dyy its transpose, and
// the four lobes of Dxy lie on a 4 x 4 grid of edges. Reading each edge once takes 32 entries of
// the integral image instead of 40; the sums, being integers, are the same.
struct HessianFilter {
  int lobe_edges[4];       // Dxx's lobes are columns [e_k, e_k+1), Dyy's rows
  int strip[2];            // Dxx's rows [strip0, strip1), Dyy's columns
  int cross_edges[4];      // Dxy's lobes span [e0, e1) or [e2, e3), along x and along y
  float lobe_weights[3];   // per unit of area, as a WeightedBox
  float cross_weights[4];  // top-left, top-right, bottom-left, bottom-right
};

GPUSIFT_HD HessianFilter hessian_filter(int size) {
  constexpr int kDxx[3][5] = {{0, 2, 3, 7, 1}, {3, 2, 6, 7, -2}, {6, 2, 9, 7, 1}};
  constexpr int kDxy[4][5] = {{1, 1, 4, 4, 1}, {5, 1, 8, 4, -1}, {1, 5, 4, 8, -1}, {5, 5, 8, 8, 1}};
  const int base = kSurfBaseFilterSize;
  HessianFilter f;
  for (int k = 0; k < 3; ++k) {
    const WeightedBox b =
        scaled_box(kDxx[k][0], kDxx[k][1], kDxx[k][2], kDxx[k][3], kDxx[k][4], base, size);
    f.lobe_edges[k] = b.x0;
    f.lobe_edges[k + 1] = b.x1;
    f.strip[0] = b.y0;
    f.strip[1] = b.y1;
    f.lobe_weights[k] = b.weight;
  }
  for (int k = 0; k < 4; ++k) {
    const WeightedBox b =
        scaled_box(kDxy[k][0], kDxy[k][1], kDxy[k][2], kDxy[k][3], kDxy[k][4], base, size);
    f.cross_edges[(k & 1) * 2] = b.x0;
    f.cross_edges[(k & 1) * 2 + 1] = b.x1;
    f.cross_weights[k] = b.weight;
  }
  return f;
}

struct HessianResponse {
  float det;    // Dxx Dyy - (0.54 Dxy)^2
  float trace;  // Dxx + Dyy, the Laplacian
};

// The 32 integral image entries that a filter reads, relative to its top-left corner: Dxx's
// 2 rows x 4 columns (entries 0-7), Dyy's 4 rows x 2 columns (8-15) and Dxy's 4 x 4 (16-31).
inline constexpr int kHessianEntries = 32;

struct TableOffset {
  int row, col;
};

GPUSIFT_HD TableOffset hessian_entry(const HessianFilter& f, int k) {
  if (k < 8)
    return TableOffset{f.strip[k >> 2], f.lobe_edges[k & 3]};
  if (k < 16)
    return TableOffset{f.lobe_edges[(k - 8) >> 1], f.strip[(k - 8) & 1]};
  return TableOffset{f.cross_edges[(k - 16) >> 2], f.cross_edges[(k - 16) & 3]};
}

// The responses from the entries in hessian_entry's order.
GPUSIFT_HD HessianResponse hessian_from_entries(const uint32_t* v, const HessianFilter& f) {
  float dxx = 0.f, dyy = 0.f, dxy = 0.f;
  for (int k = 0; k < 3; ++k) {
    const uint32_t xx = v[4 + k + 1] - v[k + 1] - v[4 + k] + v[k];
    const uint32_t yy =
        v[8 + (k + 1) * 2 + 1] - v[8 + k * 2 + 1] - v[8 + (k + 1) * 2] + v[8 + k * 2];
    dxx += static_cast<float>(xx) * f.lobe_weights[k];
    dyy += static_cast<float>(yy) * f.lobe_weights[k];
  }
  for (int k = 0; k < 4; ++k) {
    const int top = 16 + (k >> 1) * 8, left = (k & 1) * 2;  // rows 0 or 2, columns 0 or 2
    const uint32_t xy =
        v[top + 4 + left + 1] - v[top + left + 1] - v[top + 4 + left] + v[top + left];
    dxy += static_cast<float>(xy) * f.cross_weights[k];
  }
  HessianResponse r;
  r.det = dxx * dyy - kSurfDxyWeightSquared * dxy * dxy;
  r.trace = dxx + dyy;
  return r;
}

// The filter applied with its top-left corner at pixel (top, left); the filter must lie inside
// the frame.
GPUSIFT_HD HessianResponse hessian_response(const IntegralImageView& sum, const HessianFilter& f,
                                            int top, int left) {
  uint32_t v[kHessianEntries];
  for (int k = 0; k < kHessianEntries; ++k) {
    const TableOffset e = hessian_entry(f, k);
    v[k] = sum.at(top + e.row, left + e.col);
  }
  return hessian_from_entries(v, f);
}

// OpenCV's class_id: +1 for a dark blob on a bright background, -1 for a bright one, 0 if flat.
GPUSIFT_HD int laplacian_sign(float trace) {
  return (trace > 0.f) - (trace < 0.f);
}

}  // namespace gpusift
