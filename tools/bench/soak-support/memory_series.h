// SPDX-License-Identifier: LGPL-2.1-or-later
// Memory samples taken every N frames, and whether they stay flat after the warm-up.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpusift::soak {

struct MemorySample {
  long frame;
  double seconds;
  int64_t host_rss;       // bytes
  int64_t device_used;    // bytes, -1 when not measured
  double mean_keypoints;  // over the frames since the previous sample
};

struct Growth {
  bool measured = false;
  int64_t bytes = 0;          // the largest sample after the warm-up minus the first one
  double bytes_per_1000 = 0;  // least-squares slope over the samples after the warm-up
};

// Host RSS or device memory after the samples of frames <= warmup_frames.
Growth host_growth(const std::vector<MemorySample>& samples, long warmup_frames);
Growth device_growth(const std::vector<MemorySample>& samples, long warmup_frames);

// The series as a table with one row per sample, for the log and the report.
std::string series_table(const std::vector<MemorySample>& samples);

}  // namespace gpusift::soak
