// SPDX-License-Identifier: LGPL-2.1-or-later
// Dominant orientations: 36-bin gradient histogram around a keypoint (OpenCV calcOrientationHist).
#pragma once

#include "gpusift/hostdevice.h"
#include "gpusift/image_view.h"

namespace gpusift {

inline constexpr int kOrientationBins = 36;
inline constexpr float kOrientationSigmaFactor = 1.5f;
inline constexpr float kOrientationRadiusFactor = 3.f * kOrientationSigmaFactor;
inline constexpr float kOrientationPeakRatio = 0.8f;
inline constexpr float kRadiansToDegrees = 57.29577951308232f;

// Gradient angle in degrees [0, 360) with y pointing up, as cv::fastAtan2(dy, dx).
GPUSIFT_HD float gradient_angle_degrees(float dy, float dx) {
  float angle = atan2f(dy, dx) * kRadiansToDegrees;
  if (angle < 0.f)
    angle += 360.f;
  if (angle >= 360.f)
    angle -= 360.f;
  return angle;
}

struct OrientationWindow {
  int row, col;  // centre, integer pixel of the Gaussian level
  int radius;
  float exp_scale;  // -1 / (2 sigma^2)
};

// scale_in_octave is the keypoint's sigma in the octave's pixels (size / 2 / 2^octave).
GPUSIFT_HD OrientationWindow orientation_window(int row, int col, float scale_in_octave) {
  OrientationWindow w;
  w.row = row;
  w.col = col;
  w.radius = round_to_int(kOrientationRadiusFactor * scale_in_octave);
  const float sigma = kOrientationSigmaFactor * scale_in_octave;
  w.exp_scale = -1.f / (2.f * sigma * sigma);
  return w;
}

// The sample at offset (dy, dx): its bin and Gaussian-weighted magnitude. False when the pixel
// has no central-difference gradient (edge of the image).
GPUSIFT_HD bool orientation_sample(const FloatImageView& img, const OrientationWindow& w, int dy,
                                   int dx, int* bin, float* weighted_magnitude) {
  const int y = w.row + dy, x = w.col + dx;
  if (y <= 0 || y >= img.height - 1 || x <= 0 || x >= img.width - 1)
    return false;
  const float gx = img.at(y, x + 1) - img.at(y, x - 1);
  const float gy = img.at(y - 1, x) - img.at(y + 1, x);
  const float weight = expf(static_cast<float>(dy * dy + dx * dx) * w.exp_scale);
  const float angle = gradient_angle_degrees(gy, gx);
  int b = round_to_int(kOrientationBins / 360.f * angle);
  if (b >= kOrientationBins)
    b -= kOrientationBins;
  if (b < 0)
    b += kOrientationBins;
  *bin = b;
  *weighted_magnitude = weight * sqrt_rn(gx * gx + gy * gy);
  return true;
}

// Bin i of the [1 4 6 4 1] / 16 circular smoothing of the raw histogram.
GPUSIFT_HD float smoothed_orientation_bin(const float* raw, int i) {
  const int n = kOrientationBins;
  const float m2 = raw[(i + n - 2) % n], m1 = raw[(i + n - 1) % n];
  const float p1 = raw[(i + 1) % n], p2 = raw[(i + 2) % n];
  return (m2 + p2) * (1.f / 16.f) + (m1 + p1) * (4.f / 16.f) + raw[i] * (6.f / 16.f);
}

// The whole smoothed histogram; returns its maximum.
GPUSIFT_HD float smooth_orientation_histogram(const float* raw, float* smoothed) {
  float maximum = 0.f;
  for (int i = 0; i < kOrientationBins; ++i) {
    smoothed[i] = smoothed_orientation_bin(raw, i);
    maximum = i == 0 ? smoothed[0] : max_of(maximum, smoothed[i]);
  }
  return maximum;
}

// Whether bin j of the smoothed histogram is a local peak at or above `threshold` (0.8 of the
// maximum); if so, its keypoint angle (OpenCV convention) to *angle.
GPUSIFT_HD bool orientation_peak(const float* hist, int j, float threshold, float* angle) {
  const int n = kOrientationBins;
  const float left = hist[j > 0 ? j - 1 : n - 1];
  const float right = hist[j < n - 1 ? j + 1 : 0];
  if (!(hist[j] > left && hist[j] > right && hist[j] >= threshold))
    return false;
  float bin = j + 0.5f * (left - right) / (left - 2.f * hist[j] + right);
  bin = bin < 0 ? n + bin : (bin >= n ? bin - n : bin);
  *angle = 360.f - (360.f / n) * bin;
  if (fabsf(*angle - 360.f) < 1.1920929e-7f)
    *angle = 0.f;
  return true;
}

// The angles of every peak, in bin order. Writes at most kOrientationBins / 2; returns how many.
GPUSIFT_HD int orientation_peaks(const float* hist, float maximum, float* angles) {
  const float threshold = maximum * kOrientationPeakRatio;
  int count = 0;
  for (int j = 0; j < kOrientationBins; ++j) {
    if (orientation_peak(hist, j, threshold, &angles[count]))
      ++count;
  }
  return count;
}

}  // namespace gpusift
