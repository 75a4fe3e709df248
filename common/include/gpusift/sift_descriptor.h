// SPDX-License-Identifier: LGPL-2.1-or-later
// The 4x4x8 SIFT descriptor (OpenCV calcSIFTDescriptor): per-sample trilinear contributions,
// histogram folding and normalisation, shared by the CPU loop and the CUDA kernels.
#pragma once

#include <cstdint>

#include "gpusift/hostdevice.h"
#include "gpusift/image_view.h"
#include "gpusift/sift_orientation.h"

namespace gpusift {

inline constexpr int kDescriptorWidth = 4;            // spatial cells per side
inline constexpr int kDescriptorBins = 8;             // orientation bins per cell
inline constexpr float kDescriptorScaleFactor = 3.f;  // cell width in keypoint sigmas
inline constexpr float kDescriptorClamp = 0.2f;
inline constexpr float kDescriptorByteScale = 512.f;
inline constexpr int kDescriptorLength = kDescriptorWidth * kDescriptorWidth * kDescriptorBins;
// The working histogram has a guard cell on each side and two wrap-around orientation bins.
inline constexpr int kDescriptorHistRowStride = (kDescriptorWidth + 2) * (kDescriptorBins + 2);
inline constexpr int kDescriptorHistLength = (kDescriptorWidth + 2) * kDescriptorHistRowStride;

struct DescriptorWindow {
  int row, col;  // centre pixel in the Gaussian level
  int radius;
  float cos_t, sin_t;   // rotation divided by the cell width
  float angle_degrees;  // the keypoint's orientation in gradient-angle terms
};

// x, y: position in the octave's pixels; angle: the keypoint's OpenCV angle; scale: its sigma
// in the octave's pixels (size / 2 * octave scale).
GPUSIFT_HD DescriptorWindow descriptor_window(float x, float y, float keypoint_angle, float scale,
                                              int image_width, int image_height) {
  DescriptorWindow w;
  w.col = round_to_int(x);
  w.row = round_to_int(y);
  float angle = 360.f - keypoint_angle;
  if (fabsf(angle - 360.f) < 1.1920929e-7f)
    angle = 0.f;
  w.angle_degrees = angle;
  const float hist_width = kDescriptorScaleFactor * scale;
  int radius = round_to_int(hist_width * 1.4142135623730951f * (kDescriptorWidth + 1) * 0.5f);
  const double diagonal = sqrt(static_cast<double>(image_width) * image_width +
                               static_cast<double>(image_height) * image_height);
  w.radius = min_of(radius, static_cast<int>(diagonal));
  const float radians = angle * (3.14159265358979323846f / 180.f);
  w.cos_t = cosf(radians) / hist_width;
  w.sin_t = sinf(radians) / hist_width;
  return w;
}

// One sample's share of the histogram: 8 weights at base, base+1, base+(n+2), ... (see add).
struct DescriptorContribution {
  int base;
  float w[8];
};

// Computes the contribution of the sample at offset (i, j) rows/cols from the centre; false when
// it falls outside the descriptor or has no gradient.
GPUSIFT_HD bool descriptor_sample(const FloatImageView& img, const DescriptorWindow& win, int i,
                                  int j, DescriptorContribution* out) {
  const int d = kDescriptorWidth, n = kDescriptorBins;
  const float c_rot = j * win.cos_t - i * win.sin_t;
  const float r_rot = j * win.sin_t + i * win.cos_t;
  float rbin = r_rot + d / 2 - 0.5f;
  float cbin = c_rot + d / 2 - 0.5f;
  const int r = win.row + i, c = win.col + j;
  if (!(rbin > -1 && rbin < d && cbin > -1 && cbin < d && r > 0 && r < img.height - 1 && c > 0 &&
        c < img.width - 1))
    return false;
  const float dx = img.at(r, c + 1) - img.at(r, c - 1);
  const float dy = img.at(r - 1, c) - img.at(r + 1, c);
  const float exp_scale = -1.f / (d * d * 0.5f);
  const float weight = expf((c_rot * c_rot + r_rot * r_rot) * exp_scale);
  float obin = (gradient_angle_degrees(dy, dx) - win.angle_degrees) * (n / 360.f);
  const float mag = sqrt_rn(dx * dx + dy * dy) * weight;

  const int r0 = floor_to_int(rbin), c0 = floor_to_int(cbin);
  int o0 = floor_to_int(obin);
  rbin -= r0;
  cbin -= c0;
  obin -= o0;
  if (o0 < 0)
    o0 += n;
  if (o0 >= n)
    o0 -= n;

  const float v_r1 = mag * rbin, v_r0 = mag - v_r1;
  const float v_rc11 = v_r1 * cbin, v_rc10 = v_r1 - v_rc11;
  const float v_rc01 = v_r0 * cbin, v_rc00 = v_r0 - v_rc01;
  out->base = ((r0 + 1) * (d + 2) + c0 + 1) * (n + 2) + o0;
  out->w[0] = v_rc00 - v_rc00 * obin;  // (r0, c0, o0)
  out->w[1] = v_rc00 * obin;           // (r0, c0, o0+1)
  out->w[2] = v_rc01 - v_rc01 * obin;  // (r0, c0+1, o0)
  out->w[3] = v_rc01 * obin;
  out->w[4] = v_rc10 - v_rc10 * obin;  // (r0+1, c0, o0)
  out->w[5] = v_rc10 * obin;
  out->w[6] = v_rc11 - v_rc11 * obin;  // (r0+1, c0+1, o0)
  out->w[7] = v_rc11 * obin;
  return true;
}

// Offset of contribution slot k from DescriptorContribution::base.
GPUSIFT_HD int descriptor_slot_offset(int k) {
  return (k >> 2) * kDescriptorHistRowStride + ((k >> 1) & 1) * (kDescriptorBins + 2) + (k & 1);
}

GPUSIFT_HD void add_descriptor_contribution(const DescriptorContribution& c, float* hist) {
  for (int k = 0; k < 8; ++k)
    hist[c.base + descriptor_slot_offset(k)] += c.w[k];
}

// Value `index` of the 128 raw descriptor values: the histogram's bin with its wrap-around bin
// folded in, the guard cells dropped.
GPUSIFT_HD float folded_descriptor_value(const float* hist, int index) {
  const int d = kDescriptorWidth, n = kDescriptorBins;
  const int cell = index / n, k = index % n;
  const int idx = ((cell / d + 1) * (d + 2) + (cell % d + 1)) * (n + 2);
  float value = hist[idx + k];
  if (k == 0)
    value += hist[idx + n];
  if (k == 1)
    value += hist[idx + n + 1];
  return value;
}

GPUSIFT_HD void fold_descriptor_histogram(const float* hist, float* descriptor) {
  for (int index = 0; index < kDescriptorLength; ++index)
    descriptor[index] = folded_descriptor_value(hist, index);
}

// The clamp of each value, from the raw values' sum of squares.
GPUSIFT_HD float descriptor_clamp(float sum_of_squares) {
  return sqrt_rn(sum_of_squares) * kDescriptorClamp;
}

// The factor to unit norm, from the clamped values' sum of squares.
GPUSIFT_HD float descriptor_unit_scale(float sum_of_squares) {
  return 1.f / max_of(sqrt_rn(sum_of_squares), 1.1920929e-7f);
}

// Clamps each value at 0.2 of the norm and rescales to unit L2 norm, in place.
GPUSIFT_HD void normalize_descriptor(float* descriptor) {
  float sum_sq = 0.f;
  for (int k = 0; k < kDescriptorLength; ++k)
    sum_sq += descriptor[k] * descriptor[k];
  const float clamp = descriptor_clamp(sum_sq);
  sum_sq = 0.f;
  for (int k = 0; k < kDescriptorLength; ++k) {
    descriptor[k] = min_of(descriptor[k], clamp);
    sum_sq += descriptor[k] * descriptor[k];
  }
  const float inv = descriptor_unit_scale(sum_sq);
  for (int k = 0; k < kDescriptorLength; ++k)
    descriptor[k] *= inv;
}

// OpenCV's bytes: saturate_cast<uchar>(unit * 512).
GPUSIFT_HD uint8_t descriptor_byte(float unit_value) {
  const int v = round_to_int(unit_value * kDescriptorByteScale);
  return static_cast<uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
}

// A RootSIFT value from a unit descriptor's value and the descriptor's L1 norm.
GPUSIFT_HD float rootsift_value(float unit_value, float l1_norm) {
  const float inv = 1.f / max_of(l1_norm, 1.1920929e-7f);
  return sqrt_rn(fabsf(unit_value) * inv);
}

// RootSIFT from the unit descriptor: sqrt(v / |v|_1), which has unit L2 norm.
GPUSIFT_HD void descriptor_to_rootsift(float* descriptor) {
  float l1 = 0.f;
  for (int k = 0; k < kDescriptorLength; ++k)
    l1 += fabsf(descriptor[k]);
  for (int k = 0; k < kDescriptorLength; ++k)
    descriptor[k] = rootsift_value(descriptor[k], l1);
}

}  // namespace gpusift
