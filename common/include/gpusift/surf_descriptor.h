// SPDX-License-Identifier: LGPL-2.1-or-later
// The SURF descriptor (OpenCV's SURFInvoker): a square window of side 20s, turned to the
// keypoint's angle, is resampled into 21 x 21 nodes of spacing s, each the mean intensity of the
// surrounding s x s square; 2 x 2 differences of nodes are Haar responses of size 2s along the
// window's columns (dx) and rows (dy), weighted by a Gaussian of sigma 3.3s. Each of the 4 x 4
// cells sums its 5 x 5 responses into (dx, dy, |dx|, |dy|), or 8 values split by the sign of
// the other response when extended; the vector is scaled to unit length.
//
// OpenCV samples the rotated window bilinearly at one pixel spacing and shrinks it with
// INTER_AREA; here each node is the exact mean of the image over its s x s square, read from the
// integral image, which needs no intermediate window and lets every node be computed alone.
#pragma once

#include "gpusift/hostdevice.h"
#include "gpusift/keypoint.h"
#include "gpusift/surf_integral.h"
#include "gpusift/surf_orientation.h"

namespace gpusift {

inline constexpr int kSurfCellsPerSide = 4;
inline constexpr int kSurfSamplesPerCell = 5;
inline constexpr int kSurfSamplesPerSide = kSurfCellsPerSide * kSurfSamplesPerCell;  // 20
inline constexpr int kSurfNodesPerSide = kSurfSamplesPerSide + 1;                    // 21
inline constexpr int kSurfNodeCount = kSurfNodesPerSide * kSurfNodesPerSide;
inline constexpr int kSurfCellCount = kSurfCellsPerSide * kSurfCellsPerSide;
inline constexpr float kSurfDescriptorSigma = 3.3f;  // in units of s
inline constexpr float kSurfNodeLevels = 1024.f;     // steps per grey level of a node's mean

// Values per cell: 4, or 8 when extended.
GPUSIFT_HD int surf_cell_values(bool extended) {
  return extended ? 8 : 4;
}

struct SurfDescriptorWindow {
  float x, y;    // keypoint position
  float ux, uy;  // one node along the window's columns: s (cos a, sin a)
  float vx, vy;  // one node along the window's rows: s (-sin a, cos a)
  float side;    // of a node's square: s, at most the frame
  int frame_width, frame_height;
};

GPUSIFT_HD SurfDescriptorWindow surf_descriptor_window(const Keypoint& k, int frame_width,
                                                       int frame_height) {
  const float s = surf_scale(k.size);
  const float radians = k.angle * (3.14159265358979323846f / 180.f);
  const float c = cosf(radians), n = sinf(radians);
  SurfDescriptorWindow w;
  w.x = k.x;
  w.y = k.y;
  w.ux = s * c;
  w.uy = s * n;
  w.vx = -s * n;
  w.vy = s * c;
  w.side = min_of(s, static_cast<float>(min_of(frame_width, frame_height)));
  w.frame_width = frame_width;
  w.frame_height = frame_height;
  return w;
}

// Node (i, j), i, j in [0, 21): row i, column j of the window, centred on the keypoint. Squares
// reaching past the frame are moved inside it, which repeats the border as OpenCV's clamping.
// The mean is rounded to 1/1024 of a grey level: float rounding in the fractional area would
// otherwise leave noise on flat areas, which the normalisation would blow up to unit length
// (OpenCV's 8-bit window is exactly flat there).
GPUSIFT_HD float surf_node(const IntegralImageView& sum, const SurfDescriptorWindow& w, int i,
                           int j) {
  const float a = static_cast<float>(j - kSurfSamplesPerSide / 2);
  const float b = static_cast<float>(i - kSurfSamplesPerSide / 2);
  // Pixel centres lie at integers and pixel k covers [k, k + 1) in area_sum, so a square centred
  // on c starts there at c - side / 2 + 0.5.
  const float start = 0.5f - 0.5f * w.side;
  float x0 = w.x + a * w.ux + b * w.vx + start;
  float y0 = w.y + a * w.uy + b * w.vy + start;
  x0 = min_of(max_of(x0, 0.f), static_cast<float>(w.frame_width) - w.side);
  y0 = min_of(max_of(y0, 0.f), static_cast<float>(w.frame_height) - w.side);
  const float mean = area_sum(sum, x0, y0, x0 + w.side, y0 + w.side) / (w.side * w.side);
  return rintf(mean * kSurfNodeLevels) * (1.f / kSurfNodeLevels);
}

// Gaussian weight of sample (i, j), i, j in [0, 20): the product of two Gaussian taps of sigma
// 3.3, unnormalised as the unit length makes that irrelevant. (OpenCV 4's getGaussianKernel, which
// OpenCV's SURF uses, departs from the Gaussian at the two centre taps of even sizes.)
GPUSIFT_HD float surf_descriptor_weight(int i, int j) {
  const float centre = 0.5f * (kSurfSamplesPerSide - 1);
  const float di = static_cast<float>(i) - centre, dj = static_cast<float>(j) - centre;
  const float scale = -1.f / (2.f * kSurfDescriptorSigma * kSurfDescriptorSigma);
  return expf(di * di * scale) * expf(dj * dj * scale);
}

// Weighted responses of sample (i, j) from the nodes around it (row-major, kSurfNodesPerSide a
// row); weight is surf_descriptor_weight(i, j).
struct SurfResponse {
  float dx, dy;
};

GPUSIFT_HD SurfResponse surf_response(const float* nodes, int i, int j, float weight) {
  const int n = kSurfNodesPerSide;
  const float top_left = nodes[i * n + j], top_right = nodes[i * n + j + 1];
  const float bottom_left = nodes[(i + 1) * n + j], bottom_right = nodes[(i + 1) * n + j + 1];
  SurfResponse r;
  r.dx = (top_right - top_left + bottom_right - bottom_left) * weight;
  r.dy = (bottom_left - top_left + bottom_right - top_right) * weight;
  return r;
}

// Index of the cell that sample (i, j) falls in.
GPUSIFT_HD int surf_cell_of(int i, int j) {
  return (i / kSurfSamplesPerCell) * kSurfCellsPerSide + j / kSurfSamplesPerCell;
}

// Adds one response to its cell's 4 (or 8) values.
GPUSIFT_HD void add_surf_response(const SurfResponse& r, bool extended, float* cell) {
  if (!extended) {
    cell[0] += r.dx;
    cell[1] += r.dy;
    cell[2] += fabsf(r.dx);
    cell[3] += fabsf(r.dy);
    return;
  }
  float* by_dy = r.dy >= 0.f ? cell : cell + 2;
  by_dy[0] += r.dx;
  by_dy[1] += fabsf(r.dx);
  float* by_dx = r.dx >= 0.f ? cell + 4 : cell + 6;
  by_dx[0] += r.dy;
  by_dx[1] += fabsf(r.dy);
}

// Scales to unit L2 norm (OpenCV adds FLT_EPSILON to the norm, so a flat patch stays zero).
GPUSIFT_HD void normalize_surf_descriptor(float* descriptor, int length) {
  float sum_sq = 0.f;
  for (int k = 0; k < length; ++k)
    sum_sq += descriptor[k] * descriptor[k];
  const float scale = 1.f / (sqrt_rn(sum_sq) + 1.1920929e-7f);
  for (int k = 0; k < length; ++k)
    descriptor[k] *= scale;
}

}  // namespace gpusift
