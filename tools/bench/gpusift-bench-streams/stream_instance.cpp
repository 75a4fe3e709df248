// SPDX-License-Identifier: LGPL-2.1-or-later
#include "stream_instance.h"

#include <cuda_runtime.h>

#include <stdexcept>

namespace gpusift::tools {

StreamInstance::StreamInstance(const InstanceSettings& settings)
    : device_(settings.device),
      stream_(device_),
      extractor_(video_sift_params()),  // gpusiftfilter's defaults
      frame_(*settings.nv12, settings.width, settings.height),
      in_flight_(settings.in_flight),
      legacy_wait_(settings.legacy_wait) {}

void StreamInstance::run(int frames, FrameEvents* events) {
  const FrameView frame = frame_.luma();
  for (int i = 0; i < frames; ++i) {
    if (extractor_.in_flight() >= in_flight_)
      extractor_.finish(&features_);
    if (events)
      events->record_start(i, stream_.get());
    if (legacy_wait_)
      stream_.wait_for_legacy_default_stream();
    extractor_.begin(frame, stream_.get());
    if (events)
      events->record_end(i, stream_.get());
  }
  while (extractor_.in_flight() > 0)
    extractor_.finish(&features_);
}

void StreamInstance::synchronize() {
  if (cudaStreamSynchronize(stream_.get()) != cudaSuccess)
    throw std::runtime_error("cudaStreamSynchronize failed");
}

}  // namespace gpusift::tools
