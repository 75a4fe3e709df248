// SPDX-License-Identifier: LGPL-2.1-or-later
// Command line of gpusift-stress.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpusift::stress {

struct FrameSize {
  int width;
  int height;
};

struct StressOptions {
  int pipelines = 16;
  double seconds = 600;
  std::vector<std::string> backends = {"cuda", "cpu"};  // pipeline i runs backends[i % size]
  uint32_t seed = 1;
  // Negative: the defaults that depend on --seconds (see stress_usage()).
  double warmup_seconds = -1;
  double sample_seconds = -1;
  double host_tolerance_mib = 64;
  double device_tolerance_mib = 64;
  double action_interval = 2;  // mean seconds between two actions of one pipeline
  double stall_seconds = 60;
  // The first size is every pipeline's start; the scene's frames are made at the first size and
  // scaled to the others.
  std::vector<FrameSize> sizes = {{320, 240}, {640, 360}, {256, 144}, {352, 288}};
  std::string reference;  // empty: a crop of the synthetic scene, written to a temporary file
  bool verbose = false;
  bool show_help = false;
};

const char* stress_usage();

// Empty on success, else the error in one line. Fills the defaults that depend on --seconds.
std::string parse_stress_options(int argc, const char* const* argv, StressOptions* options);

}  // namespace gpusift::stress
