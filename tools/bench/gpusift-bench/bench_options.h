// SPDX-License-Identifier: LGPL-2.1-or-later
// Command line of gpusift-bench.
#pragma once

#include <string>
#include <vector>

#include "gpusift/extractor.h"

namespace gpusift::tools {

struct FrameSize {
  int width;
  int height;
};

struct BenchOptions {
  bool show_help = false;
  std::string image_path;
  int runs = 0;  // 0: kDefaultHostRuns for the CPU and OpenCV, kDefaultCudaRuns for CUDA
  std::vector<FrameSize> sizes;
  std::vector<Backend> backends;
  std::vector<bool> upscales;  // in row order
};

inline constexpr int kDefaultHostRuns = 10;
inline constexpr int kDefaultCudaRuns = 50;

const char* bench_usage();

// Fills `options` (defaults first, then argv); returns an empty string or a one-line message.
std::string parse_bench_options(int argc, const char* const* argv, BenchOptions* options);

}  // namespace gpusift::tools
