// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frame_events.h"

#include <stdexcept>
#include <string>

namespace gpusift::tools {

namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(status));
}

}  // namespace

FrameEvents::FrameEvents(int frames) : starts_(frames, nullptr), ends_(frames, nullptr) {
  try {
    for (int i = 0; i < frames; ++i) {
      check(cudaEventCreate(&starts_[i]), "cudaEventCreate");
      check(cudaEventCreate(&ends_[i]), "cudaEventCreate");
    }
  } catch (...) {
    release();
    throw;
  }
}

FrameEvents::~FrameEvents() {
  release();
}

void FrameEvents::release() {
  for (cudaEvent_t event : starts_)
    if (event)
      cudaEventDestroy(event);
  for (cudaEvent_t event : ends_)
    if (event)
      cudaEventDestroy(event);
  starts_.clear();
  ends_.clear();
}

void FrameEvents::record_start(int frame, cudaStream_t stream) {
  check(cudaEventRecord(starts_.at(frame), stream), "cudaEventRecord");
}

void FrameEvents::record_end(int frame, cudaStream_t stream) {
  check(cudaEventRecord(ends_.at(frame), stream), "cudaEventRecord");
}

std::vector<FrameInterval> FrameEvents::intervals(cudaEvent_t reference, int instance) const {
  std::vector<FrameInterval> out(starts_.size());
  for (size_t i = 0; i < starts_.size(); ++i) {
    float start = 0, end = 0;
    check(cudaEventElapsedTime(&start, reference, starts_[i]), "cudaEventElapsedTime");
    check(cudaEventElapsedTime(&end, reference, ends_[i]), "cudaEventElapsedTime");
    out[i] = FrameInterval{instance, static_cast<int>(i), start, end};
  }
  return out;
}

}  // namespace gpusift::tools
