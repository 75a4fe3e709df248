// SPDX-License-Identifier: LGPL-2.1-or-later
// Box sums over the integral image of a GRAY8 frame, the only image SURF reads.
//
// The table holds unsigned 32-bit sums that wrap around on frames whose total exceeds 2^32 (a
// 16384 x 16384 frame reaches 6.8e10). Modular arithmetic still gives every box sum exactly, as
// long as the box itself sums to less than 2^32, i.e. holds fewer than 2^32 / 255 = 16.8 million
// pixels; the parameter limits of surf_params.h keep every box of every filter below that. Host
// and device compute the same integers, and 4 bytes a pixel halve the memory of 64-bit sums.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpusift/hostdevice.h"

namespace gpusift {

struct IntegralImageView {
  const uint32_t* data;
  int width;   // of the frame; the table has width + 1 columns
  int height;  // of the frame; the table has height + 1 rows
  int stride;  // in elements, at least width + 1

  // Sum of the pixels in rows [0, row) and columns [0, col), modulo 2^32. The index is 32-bit:
  // a table of the largest frame (kMaxFrameSide + 1 rows of fewer than kMaxFrameSide + 64
  // entries) has fewer than 2^31 entries, and on the GPU 64-bit index arithmetic would cost more
  // instructions than the loads themselves.
  GPUSIFT_HD uint32_t at(int row, int col) const { return data[row * stride + col]; }
};

// Sum of the pixels in rows [top, bottom) and columns [left, right).
GPUSIFT_HD uint32_t box_sum(const IntegralImageView& sum, int top, int left, int bottom,
                            int right) {
  return sum.at(bottom, right) - sum.at(top, right) - sum.at(bottom, left) + sum.at(top, left);
}

// One box of a Haar-like pattern, relative to the pattern's top-left corner: columns [x0, x1),
// rows [y0, y1). The weight is already divided by the box's area, so that a lobe contributes
// its weight times its mean, as OpenCV's resizeHaarPattern arranges.
struct WeightedBox {
  int x0, y0, x1, y1;
  float weight;
};

// The box (x0, y0, x1, y1, weight) of a pattern designed at base_size, scaled to size with
// OpenCV's rounding.
GPUSIFT_HD WeightedBox scaled_box(int x0, int y0, int x1, int y1, int weight, int base_size,
                                  int size) {
  const float ratio = static_cast<float>(size) / static_cast<float>(base_size);
  WeightedBox b;
  b.x0 = round_to_int(ratio * x0);
  b.y0 = round_to_int(ratio * y0);
  b.x1 = round_to_int(ratio * x1);
  b.y1 = round_to_int(ratio * y1);
  b.weight = static_cast<float>(weight) / static_cast<float>((b.x1 - b.x0) * (b.y1 - b.y0));
  return b;
}

GPUSIFT_HD float weighted_box_sum(const IntegralImageView& sum, int top, int left,
                                  const WeightedBox& b) {
  const uint32_t s = box_sum(sum, top + b.y0, left + b.x0, top + b.y1, left + b.x1);
  return static_cast<float>(s) * b.weight;
}

// Exact integral of the frame, as a piecewise-constant function (pixel (r, c) covers
// [c, c + 1) x [r, r + 1)), over the real rectangle [x0, x1) x [y0, y1) inside
// [0, width] x [0, height]: the whole pixels less the cut-off fractions of the border rows and
// columns, from the 4 x 4 table entries around the rectangle's corners.
GPUSIFT_HD float area_sum(const IntegralImageView& sum, float x0, float y0, float x1, float y1) {
  const int c0 = floor_to_int(x0), r0 = floor_to_int(y0);
  // The last covered column and row; a rectangle ending on the frame's edge covers all of it.
  const int c1 = min_of(floor_to_int(x1), sum.width - 1);
  const int r1 = min_of(floor_to_int(y1), sum.height - 1);
  const int rows[4] = {r0, r0 + 1, r1, r1 + 1}, cols[4] = {c0, c0 + 1, c1, c1 + 1};
  uint32_t t[4][4];
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b)
      t[a][b] = sum.at(rows[a], cols[b]);
  }
  // Sum over rows [rows[top], rows[bottom]) and columns [cols[left], cols[right]).
  const auto box = [&t](int top, int left, int bottom, int right) {
    return static_cast<float>(t[bottom][right] - t[top][right] - t[bottom][left] + t[top][left]);
  };
  const float cut_left = x0 - static_cast<float>(c0);
  const float cut_right = static_cast<float>(c1 + 1) - x1;
  const float cut_top = y0 - static_cast<float>(r0);
  const float cut_bottom = static_cast<float>(r1 + 1) - y1;
  const float corners = cut_top * (cut_left * box(0, 0, 1, 1) + cut_right * box(0, 2, 1, 3)) +
                        cut_bottom * (cut_left * box(2, 0, 3, 1) + cut_right * box(2, 2, 3, 3));
  return box(0, 0, 3, 3) - cut_left * box(0, 0, 3, 1) - cut_right * box(0, 2, 3, 3) -
         cut_top * box(0, 0, 1, 3) - cut_bottom * box(2, 0, 3, 3) + corners;
}

}  // namespace gpusift
