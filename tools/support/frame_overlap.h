// SPDX-License-Identifier: LGPL-2.1-or-later
// How much instances' frames overlap in time on the GPU: the equivalent of reading an Nsight
// Systems timeline, from CUDA events recorded around each frame on its instance's stream.
#pragma once

#include <cstdio>
#include <vector>

namespace gpusift::tools {

// One frame on the GPU: from the moment its stream reached the frame's first work to the end
// of its last, in ms after a common reference event.
struct FrameInterval {
  int instance;
  int frame;
  double start_ms;
  double end_ms;
};

struct FrameOverlap {
  double span_ms = 0;        // first start to last end
  double busy_ms = 0;        // at least one instance had a frame on the GPU
  double overlapped_ms = 0;  // at least two had
  int max_concurrency = 0;
};

// An instance's frames follow each other on its one stream, so the number of open intervals is
// the number of instances with a frame on the GPU.
FrameOverlap measure_overlap(const std::vector<FrameInterval>& intervals);

// Rows "streams,instance,frame,start_ms,end_ms"; the header when `header` is true.
void write_intervals_csv(std::FILE* file, int streams, const std::vector<FrameInterval>& intervals,
                         bool header);

}  // namespace gpusift::tools
