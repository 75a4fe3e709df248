// SPDX-License-Identifier: LGPL-2.1-or-later
// N instances in one process, each on a thread of its own, started together after their
// warm-up; the aggregate frame rate, the memory each holds and, optionally, the timeline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "frame_overlap.h"
#include "streams_options.h"

namespace gpusift::tools {

struct StreamsResult {
  int streams = 0;
  double wall_s = 0;  // from the common start to the last instance's last frame
  double aggregate_fps = 0;
  double device_bytes = 0;               // per instance: the extractor's reserved_device_bytes()
  double pinned_bytes = 0;               // per instance: the extractor's reserved_pinned_bytes()
  double used_growth_bytes = 0;          // per instance: cudaMemGetInfo's used bytes after warm-up
  int keypoints = 0;                     // of instance 0's last frame
  std::vector<FrameInterval> intervals;  // with options.timeline
  FrameOverlap overlap;
};

// Throws std::runtime_error (or gpusift::Error) naming an instance's failure.
StreamsResult run_streams(const StreamsOptions& options, const std::vector<uint8_t>& nv12,
                          int streams);

}  // namespace gpusift::tools
