// SPDX-License-Identifier: LGPL-2.1-or-later
// GRAY8 view of a host frame of any PixelFormat, converting with OpenCV's weights when needed.
#pragma once

#include <cstdint>
#include <vector>

#include "gpusift/frame.h"

namespace gpusift {

struct HostGray {
  const uint8_t* pixels;
  size_t pitch_bytes;
};

// Gray frames are returned as they are; others are converted into `scratch` (its storage is
// reused across calls). Throws gpusift::Error(kInvalidArgument) for device memory.
HostGray host_gray_pixels(const FrameView& frame, std::vector<uint8_t>* scratch);

}  // namespace gpusift
