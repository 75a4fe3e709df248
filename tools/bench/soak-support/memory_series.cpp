// SPDX-License-Identifier: LGPL-2.1-or-later
#include "memory_series.h"

#include <algorithm>
#include <cstdio>

namespace gpusift::soak {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

Growth growth_of(const std::vector<MemorySample>& samples, long warmup_frames,
                 int64_t MemorySample::*field) {
  std::vector<const MemorySample*> settled;
  for (const MemorySample& s : samples) {
    if (s.frame > warmup_frames && s.*field >= 0)
      settled.push_back(&s);
  }
  Growth growth;
  if (settled.size() < 2)
    return growth;
  growth.measured = true;
  int64_t highest = settled.front()->*field;
  for (const MemorySample* s : settled)
    highest = std::max(highest, s->*field);
  growth.bytes = highest - settled.front()->*field;
  double mean_frame = 0, mean_value = 0;
  for (const MemorySample* s : settled) {
    mean_frame += static_cast<double>(s->frame);
    mean_value += static_cast<double>(s->*field);
  }
  mean_frame /= settled.size();
  mean_value /= settled.size();
  double covariance = 0, variance = 0;
  for (const MemorySample* s : settled) {
    covariance += (s->frame - mean_frame) * (static_cast<double>(s->*field) - mean_value);
    variance += (s->frame - mean_frame) * (s->frame - mean_frame);
  }
  growth.bytes_per_1000 = variance > 0 ? 1000.0 * covariance / variance : 0.0;
  return growth;
}

}  // namespace

Growth host_growth(const std::vector<MemorySample>& samples, long warmup_frames) {
  return growth_of(samples, warmup_frames, &MemorySample::host_rss);
}

Growth device_growth(const std::vector<MemorySample>& samples, long warmup_frames) {
  return growth_of(samples, warmup_frames, &MemorySample::device_used);
}

std::string series_table(const std::vector<MemorySample>& samples) {
  std::string table = "   frame  seconds  host_rss_mib  device_used_mib  keypoints_per_frame\n";
  char row[128];
  for (const MemorySample& s : samples) {
    char device[32] = "n/a";
    if (s.device_used >= 0)
      std::snprintf(device, sizeof device, "%.1f", s.device_used / kMiB);
    std::snprintf(row, sizeof row, "%8ld %8.1f %13.1f %16s %20.1f\n", s.frame, s.seconds,
                  s.host_rss / kMiB, device, s.mean_keypoints);
    table += row;
  }
  return table;
}

}  // namespace gpusift::soak
