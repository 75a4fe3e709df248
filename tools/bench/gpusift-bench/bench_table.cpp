// SPDX-License-Identifier: LGPL-2.1-or-later
#include "bench_table.h"

#include <cstdio>
#include <string>

namespace gpusift::tools {

std::string bench_table_header() {
  return "| size | upscale | backend | ours ms | opencv ms | speed-up (opencv/ours) | ours kp | "
         "opencv kp |\n"
         "|---|---:|---|---:|---:|---:|---:|---:|\n";
}

std::string bench_table_row(const BenchRow& row) {
  const double speed_up = row.opencv.median_ms / row.ours.median_ms;
  // OpenCV cannot skip the upscale, so on upscale=0 rows its time is only a reference.
  const char* speed_up_format = row.upscale ? "%.2f" : "(%.2f)";
  char speed_up_text[32];
  std::snprintf(speed_up_text, sizeof speed_up_text, speed_up_format, speed_up);
  char line[256];
  std::snprintf(line, sizeof line, "| %dx%d | %d | %s | %.1f | %.1f%s | %s | %d | %d |\n",
                row.size.width, row.size.height, row.upscale ? 1 : 0, backend_name(row.backend),
                row.ours.median_ms, row.opencv.median_ms, row.upscale ? "" : " (ref, upscaled)",
                speed_up_text, row.ours.keypoints, row.opencv.keypoints);
  return line;
}

std::string bench_table_footnote() {
  return "\nopencv: cv::SIFT::create()->detectAndCompute, which always doubles the image first; "
         "on upscale=0 rows its time is a reference only and the speed-up is in parentheses. "
         "Each time is the median of the timed runs after 2 warm-ups (steady_clock, host frame "
         "in, features out).\n";
}

}  // namespace gpusift::tools
