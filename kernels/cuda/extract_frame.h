// SPDX-License-Identifier: LGPL-2.1-or-later
// What every CUDA extractor does around one frame, and when it is built.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "cuda_check.h"
#include "gpusift/error.h"
#include "gpusift/extractor.h"
#include "gpusift/features.h"
#include "gpusift/frame.h"
#include "gpusift/frame_check.h"

namespace gpusift::cuda {

// The current device, which must be `device_id` unless that is -1. Throws kNoDevice without a
// GPU and kInvalidArgument for another device.
inline int current_device_for(int device_id) {
  if (cuda_device_count() == 0)
    throw Error(ErrorCode::kNoDevice, "no CUDA device is available");
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  if (device_id >= 0 && device_id != device)
    throw Error(ErrorCode::kInvalidArgument,
                "CUDA device " + std::to_string(device_id) + " is not the current device (" +
                    std::to_string(device) + "); make it current before creating the extractor");
  return device;
}

// Checks the frame and runs `run()`, which fills `out` (its descriptor arrays keep their sizes
// until then, see Features::clear_keeping_descriptor_sizes). On a failure it waits for the
// stream, so that nothing of the frame still writes the extractor's buffers, clears `out` and
// `result_count`, gives the frame-size buffers back through `release_layout()` when memory ran
// out, and rethrows.
template <typename Run, typename ReleaseLayout>
void extract_frame(const FrameView& frame, cudaStream_t stream, Features* out, int* result_count,
                   Run&& run, ReleaseLayout&& release_layout) {
  out->clear_keeping_descriptor_sizes();
  *result_count = 0;
  try {
    const int bpp = bytes_per_pixel(frame.format);
    if (bpp == 0)
      throw Error(ErrorCode::kInvalidArgument, "unknown pixel format");
    check_frame(frame.data, frame.pitch_bytes, frame.width, frame.height, bpp);
    run();
  } catch (const Error& error) {
    cudaStreamSynchronize(stream);
    cudaGetLastError();
    out->clear();
    *result_count = 0;
    if (error.code() == ErrorCode::kOutOfMemory)
      release_layout();
    throw;
  }
}

}  // namespace gpusift::cuda
