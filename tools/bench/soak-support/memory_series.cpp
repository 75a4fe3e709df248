// SPDX-License-Identifier: LGPL-2.1-or-later
#include "memory_series.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

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

// The median of values, which is not empty.
int64_t median_of(std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

SettledSeries settled_series(const std::vector<MemorySample>& samples, double warmup_seconds,
                             int64_t MemorySample::*field) {
  std::vector<int64_t> settled;
  for (const MemorySample& s : samples) {
    if (s.seconds > warmup_seconds && s.*field >= 0)
      settled.push_back(s.*field);
  }
  SettledSeries series;
  if (settled.size() < 3)
    return series;
  series.measured = true;
  series.first = settled.front();
  series.last = settled.back();
  series.highest = *std::max_element(settled.begin(), settled.end());
  const size_t third = settled.size() / 3;
  const std::vector<int64_t> early(settled.begin(), settled.begin() + third);
  const std::vector<int64_t> late(settled.end() - third, settled.end());
  series.growth = median_of(late) - median_of(early);
  return series;
}

}  // namespace

Growth host_growth(const std::vector<MemorySample>& samples, long warmup_frames) {
  return growth_of(samples, warmup_frames, &MemorySample::host_rss);
}

Growth device_growth(const std::vector<MemorySample>& samples, long warmup_frames) {
  return growth_of(samples, warmup_frames, &MemorySample::device_used);
}

SettledSeries host_series_after(const std::vector<MemorySample>& samples, double warmup_seconds) {
  return settled_series(samples, warmup_seconds, &MemorySample::host_rss);
}

SettledSeries device_series_after(const std::vector<MemorySample>& samples, double warmup_seconds) {
  return settled_series(samples, warmup_seconds, &MemorySample::device_used);
}

std::string series_lines(const std::vector<MemorySample>& samples, bool device, const char* label,
                         size_t width) {
  std::string text = label;
  text += ":";
  size_t line_start = 0;
  bool any = false;
  char value[32];
  for (const MemorySample& s : samples) {
    const int64_t bytes = device ? s.device_used : s.host_rss;
    if (bytes < 0)
      continue;
    any = true;
    std::snprintf(value, sizeof value, " %.1f", bytes / kMiB);
    if (text.size() - line_start + std::strlen(value) > width) {
      text += "\n ";
      line_start = text.size() - 1;
    }
    text += value;
  }
  return text + (any ? "\n" : " not measured\n");
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
