// SPDX-License-Identifier: LGPL-2.1-or-later
// Timed CUDA events around each frame on an instance's stream, for frame_overlap.h.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "frame_overlap.h"

namespace gpusift::tools {

class FrameEvents {
 public:
  explicit FrameEvents(int frames);  // on the device current now
  ~FrameEvents();
  FrameEvents(const FrameEvents&) = delete;
  FrameEvents& operator=(const FrameEvents&) = delete;

  // Before the frame's first work and after its last is enqueued on `stream`.
  void record_start(int frame, cudaStream_t stream);
  void record_end(int frame, cudaStream_t stream);
  // Every event recorded and complete; `reference` recorded (and complete) before the first.
  std::vector<FrameInterval> intervals(cudaEvent_t reference, int instance) const;

 private:
  void release();

  std::vector<cudaEvent_t> starts_;
  std::vector<cudaEvent_t> ends_;
};

}  // namespace gpusift::tools
