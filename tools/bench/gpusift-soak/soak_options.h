// SPDX-License-Identifier: LGPL-2.1-or-later
// Command line of gpusift-soak.
#pragma once

#include <string>

namespace gpusift::soak {

struct SoakOptions {
  std::string backend = "cpu";
  std::string method = "sift";
  long frames = 10000;
  int width = 320;
  int height = 240;
  long sample_every = 1000;
  long warmup_frames = 2000;
  double host_tolerance_mib = 8;
  double device_tolerance_mib = 4;
  std::string csv_path;
  bool show_help = false;
};

const char* soak_usage();

// Empty on success, else the error in one line.
std::string parse_soak_options(int argc, const char* const* argv, SoakOptions* options);

}  // namespace gpusift::soak
