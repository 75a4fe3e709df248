#include <cstring>
#include <string>

#include "frame_staging.h"
#include "gpusift/error.h"

namespace gpusift::cuda {

StagedFrame FrameStaging::stage(const FrameView& frame, int device, cudaStream_t stream) {
  cudaPointerAttributes attributes{};
  check(cudaPointerGetAttributes(&attributes, frame.data), "cudaPointerGetAttributes");
  if (frame.memory == MemoryKind::kDevice) {
    if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged)
      throw Error(ErrorCode::kInvalidArgument, "frame marked as device memory is not");
    if (attributes.device != device)
      throw Error(ErrorCode::kInvalidArgument, "frame is on CUDA device " +
                                                   std::to_string(attributes.device) +
                                                   ", the extractor on " + std::to_string(device));
    return StagedFrame{frame.data, frame.pitch_bytes};
  }
  const size_t row_bytes = static_cast<size_t>(frame.width) * bytes_per_pixel(frame.format);
  device_input_.reserve(row_bytes * frame.height);
  const void* source = frame.data;
  size_t source_pitch = frame.pitch_bytes;
  if (attributes.type != cudaMemoryTypeHost) {
    pinned_input_.reserve(row_bytes * frame.height);
    for (int y = 0; y < frame.height; ++y)
      std::memcpy(pinned_input_.get() + y * row_bytes,
                  static_cast<const uint8_t*>(frame.data) + y * frame.pitch_bytes, row_bytes);
    source = pinned_input_.get();
    source_pitch = row_bytes;
  }
  check(cudaMemcpy2DAsync(device_input_.get(), row_bytes, source, source_pitch, row_bytes,
                          frame.height, cudaMemcpyHostToDevice, stream),
        "cudaMemcpy2DAsync (frame upload)");
  return StagedFrame{device_input_.get(), row_bytes};
}

}  // namespace gpusift::cuda
