// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-bench-streams' command line.
#pragma once

#include <string>
#include <vector>

namespace gpusift::tools {

struct StreamsOptions {
  std::string image = "tests/data/astronaut.pnm";
  std::vector<int> streams = {1, 2, 4, 8, 16};
  int width = 1920;
  int height = 1080;
  int frames = 300;
  int warm_up = 20;
  int in_flight = 2;  // 1..CudaSiftExtractor::kMaxInFlight
  int gpus = 1;       // instance i runs on device i % gpus
  bool legacy_wait = true;
  bool timeline = false;
  std::string timeline_csv;  // implies timeline
};

// Returns an error message, or "" when the arguments are good.
std::string parse_streams_options(int argc, const char* const* argv, StreamsOptions* options);

extern const char kStreamsUsage[];

}  // namespace gpusift::tools
