// SPDX-License-Identifier: LGPL-2.1-or-later
// Brings a caller's frame where the first kernel reads it. Device frames are read in place. Host
// frames are uploaded on the stream (pageable ones through a pinned buffer, as an asynchronous
// copy from pageable memory would block the caller), or, when host frames are mapped, read in
// place through the device's mapping of pinned memory (pageable ones after a copy into the
// pinned buffer).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda_event.h"
#include "device_memory.h"
#include "gpusift/frame.h"
#include "gpusift/host_frame_access.h"

namespace gpusift::cuda {

struct StagedFrame {
  const void* data;  // an address the device reads
  size_t pitch_bytes;
  bool uploaded;  // by a copy on the stream given to stage()
  bool in_bands;  // uploaded band by band, each band's event recorded after its copy
};

// A host frame's upload in bands of rows, so that kernels can start on the first rows while the
// last are on their way: band b ends at row ends[b] (the last at the frame's height), and
// ready[b] is recorded on the stream after its copy.
struct UploadBands {
  int count = 0;  // 0: one copy
  const int* ends = nullptr;
  Event* ready = nullptr;
};

// Whether `device` (the current one) reads host frames in place under `access`. Throws
// gpusift::Error(kInvalidArgument) for kMapped on a device that cannot map host memory.
bool maps_host_frames(HostFrameAccess access, int device);

class FrameStaging {
 public:
  void set_map_host_frames(bool map) { map_host_frames_ = map; }
  bool map_host_frames() const { return map_host_frames_; }
  // Throws gpusift::Error(kInvalidArgument) for a device frame that is not on `device`. The
  // buffers are reused by the next call: the caller synchronises the stream in between.
  StagedFrame stage(const FrameView& frame, int device, cudaStream_t stream,
                    const UploadBands& bands = UploadBands{});
  size_t device_bytes() const { return device_input_.bytes(); }
  size_t pinned_bytes() const { return pinned_input_.bytes(); }

 private:
  bool map_host_frames_ = false;
  DeviceBuffer<uint8_t> device_input_;
  PinnedBuffer<uint8_t> pinned_input_;
};

}  // namespace gpusift::cuda
