// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-bench-cuda --tables sweep: time against keypoint count on busy frames. Thresholds are
// swept so that the fixed cost and the cost per keypoint can be read apart (cost_fit.h), for
// SIFT (video mode) and SURF; then nfeatures, global and grid, against the threshold that yields
// as many keypoints, which is what a cap has to beat.
#pragma once

#include <cuda_runtime.h>

#include <opencv2/core.hpp>
#include <string>
#include <vector>

namespace gpusift::tools {

struct NamedFrame {
  std::string name;  // the image it was made from
  cv::Mat gray;      // GRAY8, continuous
};

struct SweepOptions {
  int frames = 200;
  int warm_up = 10;
  std::vector<int> budgets = {500, 2000, 20000};  // nfeatures values of the cap table
};

void print_sweep_tables(const std::vector<NamedFrame>& frames, const SweepOptions& options,
                        cudaStream_t stream);

}  // namespace gpusift::tools
