// SPDX-License-Identifier: LGPL-2.1-or-later
// Validation of a caller's frame before any backend touches it.
#pragma once

#include <cstddef>

namespace gpusift {

// Throws gpusift::Error: kInvalidArgument for a null pointer, non-positive size or a pitch
// shorter than a row; kFrameTooLarge past kMaxFrameSide / kMaxFramePixels.
void check_frame(const void* data, size_t pitch_bytes, int width, int height, int bytes_per_pixel);

}  // namespace gpusift
