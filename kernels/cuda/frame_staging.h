// Brings a caller's frame into device memory: device frames are read in place, host frames are
// uploaded on the stream, pageable ones through a pinned buffer (an asynchronous copy from
// pageable memory would block the caller).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "device_memory.h"
#include "gpusift/frame.h"

namespace gpusift::cuda {

struct StagedFrame {
  const void* data;  // device memory
  size_t pitch_bytes;
};

class FrameStaging {
 public:
  // Throws gpusift::Error(kInvalidArgument) for a device frame that is not on `device`. The
  // buffers are reused by the next call: the caller synchronises the stream in between.
  StagedFrame stage(const FrameView& frame, int device, cudaStream_t stream);
  size_t device_bytes() const { return device_input_.bytes(); }
  size_t pinned_bytes() const { return pinned_input_.bytes(); }

 private:
  DeviceBuffer<uint8_t> device_input_;
  PinnedBuffer<uint8_t> pinned_input_;
};

}  // namespace gpusift::cuda
