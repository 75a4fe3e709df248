// SPDX-License-Identifier: LGPL-2.1-or-later
// DoG extremum test and sub-pixel/sub-scale refinement (OpenCV 4.x adjustLocalExtrema).
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpusift/hostdevice.h"
#include "gpusift/image_view.h"
#include "gpusift/keypoint.h"
#include "gpusift/sift_scale_space.h"

namespace gpusift {

inline constexpr int kSiftMaxRefineSteps = 5;

// Pixel values are in 0..255, so thresholds scale by 255. OpenCV's pre-threshold.
GPUSIFT_HD float extremum_prethreshold(float contrast_threshold, int n_octave_layers) {
  return floorf(0.5f * contrast_threshold / n_octave_layers * 255.f);
}

// The largest and the smallest value of a 3x3 patch, or of a row of three.
struct PatchBounds {
  float max, min;
};

GPUSIFT_HD PatchBounds bounds_of_three(float a, float b, float c) {
  return {max_of(max_of(a, b), c), min_of(min_of(a, b), c)};
}

GPUSIFT_HD PatchBounds merge_bounds(PatchBounds a, PatchBounds b, PatchBounds c) {
  return {max_of(max_of(a.max, b.max), c.max), min_of(min_of(a.min, b.min), c.min)};
}

// The patch around `centre`, the centre included; its nine loads are independent.
GPUSIFT_HD PatchBounds patch_bounds(const float* centre, ptrdiff_t stride) {
  const float* above = centre - stride;
  const float* below = centre + stride;
  return merge_bounds(bounds_of_three(above[-1], above[0], above[1]),
                      bounds_of_three(centre[-1], centre[0], centre[1]),
                      bounds_of_three(below[-1], below[0], below[1]));
}

GPUSIFT_HD bool passes_prethreshold(float value, float threshold) {
  return fabsf(value) > threshold;
}

// No value of the patch lies above a positive `value`, or below a negative one.
GPUSIFT_HD bool beats_patch(float value, PatchBounds patch) {
  return value > 0 ? !(patch.max > value) : !(patch.min < value);
}

// val is a maximum >= all 26 neighbours or a minimum <= all of them, with |val| > threshold.
// A layer at a time, its own first, each layer's nine values loaded together: most points that
// pass the threshold fail within their own layer, and a GPU thread then waits for memory twice
// instead of once per value compared.
GPUSIFT_HD bool is_scale_space_extremum(const LayerStackView& dog, int layer, int row, int col,
                                        float threshold) {
  const float* centre =
      &dog.data[layer * dog.layer_stride + static_cast<ptrdiff_t>(row) * dog.stride + col];
  const float value = *centre;
  if (!passes_prethreshold(value, threshold))
    return false;
  const auto layer_stride = static_cast<ptrdiff_t>(dog.layer_stride);
  const auto stride = static_cast<ptrdiff_t>(dog.stride);
  return beats_patch(value, patch_bounds(centre, stride)) &&
         beats_patch(value, patch_bounds(centre - layer_stride, stride)) &&
         beats_patch(value, patch_bounds(centre + layer_stride, stride));
}

struct ScaleSpaceGradient {
  float dx, dy, ds;
  float dxx, dyy, dss, dxy, dxs, dys;
};

GPUSIFT_HD ScaleSpaceGradient scale_space_derivatives(const LayerStackView& dog, int layer, int r,
                                                      int c) {
  const float img_scale = 1.f / 255.f;
  const float deriv_scale = img_scale * 0.5f;
  const float second_scale = img_scale;
  const float cross_scale = img_scale * 0.25f;
  const int p = layer - 1, n = layer + 1, l = layer;
  const float v2 = dog.at(l, r, c) * 2.f;
  ScaleSpaceGradient g;
  g.dx = (dog.at(l, r, c + 1) - dog.at(l, r, c - 1)) * deriv_scale;
  g.dy = (dog.at(l, r + 1, c) - dog.at(l, r - 1, c)) * deriv_scale;
  g.ds = (dog.at(n, r, c) - dog.at(p, r, c)) * deriv_scale;
  g.dxx = (dog.at(l, r, c + 1) + dog.at(l, r, c - 1) - v2) * second_scale;
  g.dyy = (dog.at(l, r + 1, c) + dog.at(l, r - 1, c) - v2) * second_scale;
  g.dss = (dog.at(n, r, c) + dog.at(p, r, c) - v2) * second_scale;
  g.dxy = (dog.at(l, r + 1, c + 1) - dog.at(l, r + 1, c - 1) - dog.at(l, r - 1, c + 1) +
           dog.at(l, r - 1, c - 1)) *
          cross_scale;
  g.dxs = (dog.at(n, r, c + 1) - dog.at(n, r, c - 1) - dog.at(p, r, c + 1) + dog.at(p, r, c - 1)) *
          cross_scale;
  g.dys = (dog.at(n, r + 1, c) - dog.at(n, r - 1, c) - dog.at(p, r + 1, c) + dog.at(p, r - 1, c)) *
          cross_scale;
  return g;
}

// Solves H x = b for the symmetric 3x3 Hessian by Cramer's rule; false when singular.
GPUSIFT_HD bool solve_hessian(const ScaleSpaceGradient& g, float* x_col, float* x_row,
                              float* x_layer) {
  const float a00 = g.dxx, a01 = g.dxy, a02 = g.dxs;
  const float a11 = g.dyy, a12 = g.dys, a22 = g.dss;
  const float b0 = g.dx, b1 = g.dy, b2 = g.ds;
  const float det =
      a00 * (a11 * a22 - a12 * a12) - a01 * (a01 * a22 - a12 * a02) + a02 * (a01 * a12 - a11 * a02);
  if (det == 0.f)
    return false;
  const float inv = 1.f / det;
  *x_col = inv * (b0 * (a11 * a22 - a12 * a12) - a01 * (b1 * a22 - a12 * b2) +
                  a02 * (b1 * a12 - a11 * b2));
  *x_row = inv * (a00 * (b1 * a22 - a12 * b2) - b0 * (a01 * a22 - a12 * a02) +
                  a02 * (a01 * b2 - b1 * a02));
  *x_layer = inv * (a00 * (a11 * b2 - b1 * a12) - a01 * (a01 * b2 - b1 * a02) +
                    b0 * (a01 * a12 - a11 * a02));
  return true;
}

struct RefineSettings {
  int n_octave_layers;
  float contrast_threshold;
  float edge_threshold;
  float sigma;
  int first_octave;  // -1 when the base image is doubled, else 0
};

struct RefinedExtremum {
  int layer, row, col;  // integer location after refinement (orientation uses it)
  Keypoint keypoint;    // base-image coordinates, angle unset
};

// Moves the extremum at (layer, row, col) of octave `octave` (0-based pyramid index) to its
// sub-pixel/sub-scale position, then applies the contrast and edge tests. False rejects it.
GPUSIFT_HD bool refine_extremum(const LayerStackView& dog, int octave, int layer, int row, int col,
                                const RefineSettings& s, RefinedExtremum* out) {
  float xc = 0, xr = 0, xi = 0;
  int step = 0;
  for (; step < kSiftMaxRefineSteps; ++step) {
    const ScaleSpaceGradient g = scale_space_derivatives(dog, layer, row, col);
    float sc = 0, sr = 0, si = 0;
    if (!solve_hessian(g, &sc, &sr, &si))
      sc = sr = si = 0;
    xc = -sc;
    xr = -sr;
    xi = -si;
    if (fabsf(xi) < 0.5f && fabsf(xr) < 0.5f && fabsf(xc) < 0.5f)
      break;
    const float limit = 715827882.f;  // INT_MAX / 3, as OpenCV
    if (!(fabsf(xi) <= limit && fabsf(xr) <= limit && fabsf(xc) <= limit))
      return false;
    col += round_to_int(xc);
    row += round_to_int(xr);
    layer += round_to_int(xi);
    if (layer < 1 || layer > s.n_octave_layers || col < kSiftImageBorder ||
        col >= dog.width - kSiftImageBorder || row < kSiftImageBorder ||
        row >= dog.height - kSiftImageBorder)
      return false;
  }
  if (step >= kSiftMaxRefineSteps)
    return false;

  const ScaleSpaceGradient g = scale_space_derivatives(dog, layer, row, col);
  const float t = g.dx * xc + g.dy * xr + g.ds * xi;
  const float contrast = dog.at(layer, row, col) * (1.f / 255.f) + t * 0.5f;
  if (fabsf(contrast) * s.n_octave_layers < s.contrast_threshold)
    return false;

  const float trace = g.dxx + g.dyy;
  const float det = g.dxx * g.dyy - g.dxy * g.dxy;
  const float e = s.edge_threshold;
  if (det <= 0 || trace * trace * e >= (e + 1) * (e + 1) * det)
    return false;

  // Multiplying by powers of two is exact, so this equals OpenCV's two-step scaling.
  const float to_base = ldexpf(1.f, octave + s.first_octave);
  Keypoint& k = out->keypoint;
  k.x = (col + xc) * to_base;
  k.y = (row + xr) * to_base;
  k.size = s.sigma * powf(2.f, (layer + xi) / s.n_octave_layers) * to_base * 2.f;
  k.response = fabsf(contrast);
  k.angle = -1.f;
  k.class_id = -1;
  k.octave =
      ((octave + s.first_octave) & 255) | (layer << 8) | (round_to_int((xi + 0.5f) * 255.f) << 16);
  out->layer = layer;
  out->row = row;
  out->col = col;
  return true;
}

}  // namespace gpusift
