// SPDX-License-Identifier: LGPL-2.1-or-later
// One instance as gpusiftfilter runs one: its own non-blocking stream and CudaSiftExtractor on
// its device, upscale off, float descriptors, reading NV12 frames from its own pinned buffer with
// frames in flight. Create and use it on one thread.
#pragma once

#include <cstdint>
#include <vector>

#include "frame_events.h"
#include "gpusift/cuda_sift.h"
#include "nv12_frame.h"

namespace gpusift::tools {

struct InstanceSettings {
  const std::vector<uint8_t>* nv12;
  int device;
  int width;
  int height;
  int in_flight;     // 1..CudaSiftExtractor::kMaxInFlight
  bool legacy_wait;  // each frame waits for the legacy default stream, as the plugin's do
};

class StreamInstance {
 public:
  explicit StreamInstance(const InstanceSettings& settings);

  // `frames` frames of the same picture, all finished on return; with `events`, each frame's
  // start and end are recorded on the stream around its enqueueing.
  void run(int frames, FrameEvents* events);
  void synchronize();

  int keypoints() const { return static_cast<int>(features_.keypoints.size()); }
  const CudaSiftExtractor& extractor() const { return extractor_; }

 private:
  ScopedCudaDevice device_;
  OwnedCudaStream stream_;
  CudaSiftExtractor extractor_;
  PinnedNv12Frame frame_;
  Features features_;
  int in_flight_;
  bool legacy_wait_;
};

}  // namespace gpusift::tools
