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

// Dxx, Dyy and Dxy of the 9x9 filter, boxes as {x0, y0, x1, y1, weight}; larger filters scale
// them. Lobe weights are per unit of mean, so responses are intensity differences.
struct HessianFilter {
  WeightedBox dxx[3];
  WeightedBox dyy[3];
  WeightedBox dxy[4];
};

GPUSIFT_HD HessianFilter hessian_filter(int size) {
  constexpr int kDxx[3][5] = {{0, 2, 3, 7, 1}, {3, 2, 6, 7, -2}, {6, 2, 9, 7, 1}};
  constexpr int kDyy[3][5] = {{2, 0, 7, 3, 1}, {2, 3, 7, 6, -2}, {2, 6, 7, 9, 1}};
  constexpr int kDxy[4][5] = {{1, 1, 4, 4, 1}, {5, 1, 8, 4, -1}, {1, 5, 4, 8, -1}, {5, 5, 8, 8, 1}};
  const int base = kSurfBaseFilterSize;
  HessianFilter f;
  for (int k = 0; k < 3; ++k) {
    f.dxx[k] = scaled_box(kDxx[k][0], kDxx[k][1], kDxx[k][2], kDxx[k][3], kDxx[k][4], base, size);
    f.dyy[k] = scaled_box(kDyy[k][0], kDyy[k][1], kDyy[k][2], kDyy[k][3], kDyy[k][4], base, size);
  }
  for (int k = 0; k < 4; ++k)
    f.dxy[k] = scaled_box(kDxy[k][0], kDxy[k][1], kDxy[k][2], kDxy[k][3], kDxy[k][4], base, size);
  return f;
}

struct HessianResponse {
  float det;    // Dxx Dyy - 0.81 Dxy^2
  float trace;  // Dxx + Dyy, the Laplacian
};

// The filter applied with its top-left corner at pixel (top, left); the filter must lie inside
// the frame.
GPUSIFT_HD HessianResponse hessian_response(const IntegralImageView& sum, const HessianFilter& f,
                                            int top, int left) {
  float dxx = 0.f, dyy = 0.f, dxy = 0.f;
  for (int k = 0; k < 3; ++k) {
    dxx += weighted_box_sum(sum, top, left, f.dxx[k]);
    dyy += weighted_box_sum(sum, top, left, f.dyy[k]);
  }
  for (int k = 0; k < 4; ++k)
    dxy += weighted_box_sum(sum, top, left, f.dxy[k]);
  HessianResponse r;
  r.det = dxx * dyy - kSurfDxyWeightSquared * dxy * dxy;
  r.trace = dxx + dyy;
  return r;
}

// OpenCV's class_id: +1 for a dark blob on a bright background, -1 for a bright one, 0 if flat.
GPUSIFT_HD int laplacian_sign(float trace) {
  return (trace > 0.f) - (trace < 0.f);
}

}  // namespace gpusift
