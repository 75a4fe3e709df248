// SPDX-License-Identifier: LGPL-2.1-or-later
#include <algorithm>
#include <cstring>
#include <string>

#include "frame_staging.h"
#include "gpusift/error.h"
#include "gpusift/host_copy.h"

namespace gpusift::cuda {

namespace {

bool device_attribute(cudaDeviceAttr attribute, int device) {
  int value = 0;
  check(cudaDeviceGetAttribute(&value, attribute, device), "cudaDeviceGetAttribute");
  return value != 0;
}

}  // namespace

bool maps_host_frames(HostFrameAccess access, int device) {
  switch (access) {
    case HostFrameAccess::kCopy:
      return false;
    case HostFrameAccess::kAuto:
      return device_attribute(cudaDevAttrIntegrated, device) &&
             device_attribute(cudaDevAttrCanMapHostMemory, device);
    case HostFrameAccess::kMapped:
      if (!device_attribute(cudaDevAttrCanMapHostMemory, device))
        throw Error(ErrorCode::kInvalidArgument,
                    "CUDA device " + std::to_string(device) + " cannot map host memory");
      return true;
  }
  return false;
}

StagedFrame FrameStaging::stage(const FrameView& frame, int device, cudaStream_t stream,
                                const UploadBands& bands) {
  cudaPointerAttributes attributes{};
  check(cudaPointerGetAttributes(&attributes, frame.data), "cudaPointerGetAttributes");
  if (frame.memory == MemoryKind::kDevice) {
    if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged)
      throw Error(ErrorCode::kInvalidArgument, "frame marked as device memory is not");
    if (attributes.device != device)
      throw Error(ErrorCode::kInvalidArgument, "frame is on CUDA device " +
                                                   std::to_string(attributes.device) +
                                                   ", the extractor on " + std::to_string(device));
    return StagedFrame{frame.data, frame.pitch_bytes, false, false};
  }
  const bool pinned = attributes.type == cudaMemoryTypeHost;
  if (map_host_frames_ && pinned && attributes.devicePointer)
    return StagedFrame{attributes.devicePointer, frame.pitch_bytes, false, false};

  const size_t row_bytes = static_cast<size_t>(frame.width) * bytes_per_pixel(frame.format);
  const bool through_pinned = !pinned || map_host_frames_;
  if (through_pinned)
    pinned_input_.reserve(row_bytes * frame.height);
  // Rows first .. end-1 into the pinned buffer, packed.
  const auto copy_to_pinned = [&](int first, int end) {
    const auto* from = static_cast<const uint8_t*>(frame.data);
    if (frame.pitch_bytes == row_bytes) {
      copy_in_parallel(from + first * row_bytes, row_bytes * (end - first),
                       pinned_input_.get() + first * row_bytes);
      return;
    }
    for (int y = first; y < end; ++y)
      std::memcpy(pinned_input_.get() + y * row_bytes, from + y * frame.pitch_bytes, row_bytes);
  };
  if (map_host_frames_) {
    copy_to_pinned(0, frame.height);
    return StagedFrame{mapped_host_pointer(pinned_input_.get()), row_bytes, false, false};
  }
  const auto* rows = static_cast<const uint8_t*>(through_pinned ? pinned_input_.get() : frame.data);
  const size_t source_pitch = through_pinned ? row_bytes : frame.pitch_bytes;
  device_input_.reserve(row_bytes * frame.height);
  // A pageable frame goes into pinned memory band by band: the host copies a band while the
  // bands before it upload.
  int first = 0;
  for (int b = 0; b < std::max(bands.count, 1); ++b) {
    const int end = bands.count > 0 ? bands.ends[b] : frame.height;
    if (end > first) {
      if (through_pinned)
        copy_to_pinned(first, end);
      check(cudaMemcpy2DAsync(device_input_.get() + first * row_bytes, row_bytes,
                              rows + first * source_pitch, source_pitch, row_bytes, end - first,
                              cudaMemcpyHostToDevice, stream),
            "cudaMemcpy2DAsync (frame upload)");
    }
    if (bands.count > 0)
      bands.ready[b].record(stream);
    first = end;
  }
  return StagedFrame{device_input_.get(), row_bytes, true, bands.count > 0};
}

}  // namespace gpusift::cuda
