// SPDX-License-Identifier: LGPL-2.1-or-later
// A frame's extraction time against its keypoint count, read from a threshold sweep: the fixed
// cost (the scale space and detection, which every frame pays) and the cost per keypoint
// (orientation, descriptors, the copies), by least squares over the sweep's points.
#pragma once

#include <vector>

namespace gpusift::tools {

struct CostPoint {
  int keypoints;
  double ms;
};

struct CostFit {
  double fixed_ms = 0.0;         // the line's time at zero keypoints
  double ns_per_keypoint = 0.0;  // its slope
  double worst_residual_ms = 0.0;
  bool valid = false;  // false with fewer than two distinct keypoint counts
};

CostFit fit_cost(const std::vector<CostPoint>& points);

}  // namespace gpusift::tools
