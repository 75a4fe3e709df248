// SPDX-License-Identifier: LGPL-2.1-or-later
// The markdown table gpusift-bench prints, one row per size, upscale setting and backend.
#pragma once

#include <string>

#include "bench_options.h"
#include "gpusift/extractor.h"

namespace gpusift::tools {

struct Timing {
  double median_ms;
  int keypoints;
};

struct BenchRow {
  FrameSize size;
  bool upscale;
  Backend backend;
  Timing ours;
  Timing opencv;  // cv::SIFT, which always upscales
};

std::string bench_table_header();  // column names and the alignment line
std::string bench_table_row(const BenchRow& row);
std::string bench_table_footnote();

}  // namespace gpusift::tools
