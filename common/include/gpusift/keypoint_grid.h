// SPDX-License-Identifier: LGPL-2.1-or-later
// The spread keypoint budget (nfeatures with KeypointDistribution::kGrid): which cell of the
// frame each keypoint falls in. Shared by the CPU selection and the CUDA kernels, so that both
// backends put every keypoint in the same cell and keep the same keypoints.
#pragma once

#include <cstdint>
#include <cstring>

#include "gpusift/hostdevice.h"
#include "gpusift/keypoint.h"

namespace gpusift {

// Square cells of cell_side pixels, columns x rows of them, the last column and row cut by the
// frame's edge.
struct KeypointGrid {
  int cell_side;
  int columns;
  int rows;
};

// About this many of the budget's keypoints to a cell: ORB-SLAM's 30-pixel cells hold about three
// of its 1,000 keypoints at 640x480. Fewer would leave most cells of a plain frame empty, more
// would let texture crowd a cell again.
inline constexpr int kKeypointsPerGridCell = 4;
// The cell indices fit 14 bits beside the 32 bits of a response in the CUDA sort keys.
inline constexpr int kMaxGridCells = 1 << 14;

// The grid for a budget of `budget` keypoints (>= 1) on a width x height frame: budget /
// kKeypointsPerGridCell cells (at least one, at most kMaxGridCells), square, integer-sided.
KeypointGrid keypoint_grid_for(int width, int height, int budget);

// The cell of a keypoint, row-major. The position is truncated, which is exact on the host and
// the device alike; refined positions just outside the frame go to the nearest edge cell.
GPUSIFT_HD int keypoint_grid_cell(const KeypointGrid& grid, const Keypoint& k) {
  int column = k.x > 0.f ? static_cast<int>(k.x) / grid.cell_side : 0;
  int row = k.y > 0.f ? static_cast<int>(k.y) / grid.cell_side : 0;
  column = column < grid.columns ? column : grid.columns - 1;
  row = row < grid.rows ? row : grid.rows - 1;
  return row * grid.columns + column;
}

// A response as an unsigned key whose ascending order is the responses' descending order, -0
// and +0 alike: the order the backends' "strongest first" sorts share.
GPUSIFT_HD uint32_t strongest_first_key(float response) {
  const float value = response == 0.f ? 0.f : response;
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  const uint32_t ascending = (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
  return ~ascending;
}

}  // namespace gpusift
