// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/host_gray.h"

#include "gpusift/color.h"
#include "gpusift/error.h"
#include "gpusift/frame_check.h"

namespace gpusift {

HostGray host_gray_pixels(const FrameView& frame, std::vector<uint8_t>* scratch) {
  if (frame.memory != MemoryKind::kHost)
    throw Error(ErrorCode::kInvalidArgument, "the CPU backend reads host memory only");
  check_frame(frame.data, frame.pitch_bytes, frame.width, frame.height,
              bytes_per_pixel(frame.format));
  const LumaRange range = frame.luma_range;
  if (frame.format == PixelFormat::kGray8 && range == LumaRange::kFull)
    return {static_cast<const uint8_t*>(frame.data), frame.pitch_bytes};
  const int step = bytes_per_pixel(frame.format);
  scratch->resize(static_cast<size_t>(frame.width) * frame.height);
#pragma omp parallel for schedule(static)
  for (int y = 0; y < frame.height; ++y) {
    const uint8_t* in = static_cast<const uint8_t*>(frame.data) + y * frame.pitch_bytes;
    uint8_t* out = scratch->data() + static_cast<size_t>(y) * frame.width;
    for (int x = 0; x < frame.width; ++x, in += step)
      out[x] = luma_at_full_range(gray8_of_pixel(in, frame.format), range);
  }
  return {scratch->data(), static_cast<size_t>(frame.width)};
}

}  // namespace gpusift
