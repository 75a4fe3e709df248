// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/frame_check.h"

#include <string>

#include "gpusift/error.h"
#include "gpusift/sift_params.h"

namespace gpusift {

void check_frame(const void* data, size_t pitch_bytes, int width, int height, int bytes_per_pixel) {
  const std::string size = std::to_string(width) + "x" + std::to_string(height);
  if (width < 1 || height < 1)
    throw Error(ErrorCode::kInvalidArgument, "frame size " + size + " is not positive");
  if (width > kMaxFrameSide || height > kMaxFrameSide ||
      static_cast<long long>(width) * height > kMaxFramePixels)
    throw Error(ErrorCode::kFrameTooLarge, "frame " + size + " is larger than the supported " +
                                               std::to_string(kMaxFrameSide) + "x" +
                                               std::to_string(kMaxFrameSide));
  if (data == nullptr)
    throw Error(ErrorCode::kInvalidArgument, "frame data is null");
  if (pitch_bytes < static_cast<size_t>(width) * bytes_per_pixel)
    throw Error(ErrorCode::kInvalidArgument,
                "pitch " + std::to_string(pitch_bytes) + " is shorter than a row of " + size);
}

}  // namespace gpusift
