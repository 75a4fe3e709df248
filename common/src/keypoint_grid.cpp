// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/keypoint_grid.h"

#include <algorithm>
#include <cmath>

namespace gpusift {

KeypointGrid keypoint_grid_for(int width, int height, int budget) {
  const int cells = std::clamp(budget / kKeypointsPerGridCell, 1, kMaxGridCells);
  const double area = static_cast<double>(width) * height;
  int side = std::max(1, static_cast<int>(std::ceil(std::sqrt(area / cells))));
  // Cut edge cells can take the count past the limit: widen the cells until it fits.
  for (;;) {
    const long long columns = (width + side - 1) / side, rows = (height + side - 1) / side;
    if (columns * rows <= kMaxGridCells)
      return KeypointGrid{side, static_cast<int>(columns), static_cast<int>(rows)};
    ++side;
  }
}

}  // namespace gpusift
