// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frame_overlap.h"

#include <algorithm>
#include <utility>

namespace gpusift::tools {

FrameOverlap measure_overlap(const std::vector<FrameInterval>& intervals) {
  FrameOverlap overlap;
  if (intervals.empty())
    return overlap;
  // Ends sort before starts at the same moment: a frame that begins as its predecessor on the
  // same stream ends is not an overlap.
  std::vector<std::pair<double, int>> edges;
  edges.reserve(2 * intervals.size());
  for (const FrameInterval& i : intervals) {
    edges.emplace_back(i.start_ms, +1);
    edges.emplace_back(i.end_ms, -1);
  }
  std::sort(edges.begin(), edges.end());
  int open = 0;
  for (size_t e = 0; e < edges.size(); ++e) {
    if (e > 0) {
      const double length = edges[e].first - edges[e - 1].first;
      if (open >= 1)
        overlap.busy_ms += length;
      if (open >= 2)
        overlap.overlapped_ms += length;
    }
    open += edges[e].second;
    overlap.max_concurrency = std::max(overlap.max_concurrency, open);
  }
  overlap.span_ms = edges.back().first - edges.front().first;
  return overlap;
}

void write_intervals_csv(std::FILE* file, int streams, const std::vector<FrameInterval>& intervals,
                         bool header) {
  if (header)
    std::fprintf(file, "streams,instance,frame,start_ms,end_ms\n");
  for (const FrameInterval& i : intervals)
    std::fprintf(file, "%d,%d,%d,%.4f,%.4f\n", streams, i.instance, i.frame, i.start_ms, i.end_ms);
}

}  // namespace gpusift::tools
