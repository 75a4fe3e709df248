// SPDX-License-Identifier: LGPL-2.1-or-later
// Memory samples taken every N frames (the soak) or every N seconds (the stress run), and whether
// they stay flat after the warm-up.
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

// One series (host RSS or device memory) after a warm-up counted in seconds. Many pipelines that
// restart, renegotiate and seek at random hold a varying amount of memory at any instant, so a
// single first sample is a poor baseline: growth compares the median of the last third of the
// settled samples with the median of the first third. A leak shows as a rising level; the state
// of the moment averages out.
struct SettledSeries {
  bool measured = false;  // at least three settled samples
  int64_t first = 0;      // bytes, each after the warm-up
  int64_t last = 0;
  int64_t highest = 0;
  int64_t growth = 0;  // median of the last third minus median of the first third
};

SettledSeries host_series_after(const std::vector<MemorySample>& samples, double warmup_seconds);
SettledSeries device_series_after(const std::vector<MemorySample>& samples, double warmup_seconds);

// The series in MiB on wrapped lines of about `width` characters, "label: 12.3 12.4 ...", or
// "label: not measured".
std::string series_lines(const std::vector<MemorySample>& samples, bool device, const char* label,
                         size_t width = 100);

}  // namespace gpusift::soak
