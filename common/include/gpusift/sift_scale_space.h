// SPDX-License-Identifier: LGPL-2.1-or-later
// Scale-space geometry of OpenCV 4.x SIFT: octave count, blur sigmas and Gaussian taps.
#pragma once

#include "gpusift/hostdevice.h"
#include "gpusift/image_view.h"

namespace gpusift {

inline constexpr float kSiftAssumedInputBlur = 0.5f;  // OpenCV's SIFT_INIT_SIGMA
inline constexpr int kSiftImageBorder = 5;            // no extrema closer to the edge
inline constexpr int kMaxGaussianRadius = 128;        // sigma up to ~32

// Levels per octave in the Gaussian stack and in the DoG stack.
GPUSIFT_HD int gaussian_levels(int n_octave_layers) {
  return n_octave_layers + 3;
}
GPUSIFT_HD int dog_levels(int n_octave_layers) {
  return n_octave_layers + 2;
}

// Blur that takes the (possibly doubled) input to sigma, assuming the camera gave 0.5.
GPUSIFT_HD float initial_blur_sigma(float sigma, bool upscale) {
  const float assumed = upscale ? 2.f * kSiftAssumedInputBlur : kSiftAssumedInputBlur;
  return sqrt_rn(max_of(sigma * sigma - assumed * assumed, 0.01f));
}

// Incremental blur from level-1 to level within an octave (level >= 1).
GPUSIFT_HD float level_blur_sigma(float sigma, int n_octave_layers, int level) {
  const double k = pow(2.0, 1.0 / n_octave_layers);
  const double previous = pow(k, static_cast<double>(level - 1)) * sigma;
  const double total = previous * k;
  return static_cast<float>(sqrt(total * total - previous * previous));
}

// OpenCV's cv::GaussianBlur with Size() on float images: ksize = round(8 sigma + 1) | 1.
GPUSIFT_HD int gaussian_radius(float sigma) {
  return (round_to_int(static_cast<double>(sigma) * 8.0 + 1.0) | 1) / 2;
}

// Normalised taps[0 .. 2*radius], computed in double as cv::getGaussianKernel does.
GPUSIFT_HD void gaussian_taps(float sigma, int radius, float* taps) {
  const double scale = -0.5 / (static_cast<double>(sigma) * sigma);
  double sum = 0;
  double values[2 * kMaxGaussianRadius + 1];
  for (int i = -radius; i <= radius; ++i) {
    values[i + radius] = exp(scale * i * i);
    sum += values[i + radius];
  }
  for (int i = 0; i <= 2 * radius; ++i)
    taps[i] = static_cast<float>(values[i] / sum);
}

// OpenCV: round(log2(min side of the base image) - 2) octaves, plus one when upscaled.
// base_width/base_height are those of the (possibly doubled) base image.
GPUSIFT_HD int octave_count(int base_width, int base_height, bool upscale) {
  const int smallest = min_of(base_width, base_height);
  if (smallest < 1)
    return 0;
  const int count =
      round_to_int(log(static_cast<double>(smallest)) / log(2.0) - 2.0) + (upscale ? 1 : 0);
  return max_of(count, 0);
}

// The first octaves of octave_count() that hold a position at least kSiftImageBorder from every
// edge: the octaves after them cannot give a keypoint, so neither backend builds them.
GPUSIFT_HD int octaves_with_interior(int base_width, int base_height, bool upscale) {
  int count = octave_count(base_width, base_height, upscale);
  while (count > 0 &&
         (min_of(base_width >> (count - 1), base_height >> (count - 1)) <= 2 * kSiftImageBorder))
    --count;
  return count;
}

// The octaves both backends build: octaves_with_interior(), at most max_octaves of them unless
// that is 0.
GPUSIFT_HD int built_octaves(int base_width, int base_height, bool upscale, int max_octaves) {
  const int count = octaves_with_interior(base_width, base_height, upscale);
  return max_octaves > 0 ? min_of(count, max_octaves) : count;
}

// Index that mirrors i into [0, n) without repeating the edge: OpenCV's BORDER_REFLECT_101.
GPUSIFT_HD int reflect101(int i, int n) {
  if (n == 1)
    return 0;
  while (i < 0 || i >= n) {
    if (i < 0)
      i = -i;
    if (i >= n)
      i = 2 * (n - 1) - i;
  }
  return i;
}

// cv::resize (linear) to exactly twice the size: output (y, x) samples the source at
// (y / 2 - 0.25, x / 2 - 0.25), replicating the edges; horizontal pass first, as OpenCV.
GPUSIFT_HD float upscaled_row_sample(const FloatImageView& src, int row, int x) {
  const float* in = src.data + static_cast<ptrdiff_t>(row) * src.stride;
  const int sx = x / 2;
  if (x % 2 == 0)
    return sx > 0 ? in[sx - 1] * 0.25f + in[sx] * 0.75f : in[sx];
  return sx + 1 < src.width ? in[sx] * 0.75f + in[sx + 1] * 0.25f : in[sx];
}

GPUSIFT_HD float upscaled_pixel(const FloatImageView& src, int y, int x) {
  const int near = y / 2;
  const int far = y % 2 == 0 ? near - 1 : near + 1;
  if (far < 0 || far >= src.height)
    return upscaled_row_sample(src, near, x);
  const int upper = y % 2 == 0 ? far : near;
  const float top_weight = y % 2 == 0 ? 0.25f : 0.75f;
  return upscaled_row_sample(src, upper, x) * top_weight +
         upscaled_row_sample(src, upper + 1, x) * (1.f - top_weight);
}

}  // namespace gpusift
