// SPDX-License-Identifier: LGPL-2.1-or-later
// What both CPU extractors do around one frame.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>

#include "gpusift/error.h"
#include "gpusift/features.h"
#include "gpusift/frame_check.h"

namespace gpusift::cpu {

// Checks the GRAY8 frame and runs `run()`. When host memory runs out it calls
// `forget_layout()`, so that the next frame allocates afresh, clears `out` and throws
// Error(kOutOfMemory).
template <typename Run, typename ForgetLayout>
void extract_frame(const uint8_t* gray, size_t pitch_bytes, int width, int height, Features* out,
                   Run&& run, ForgetLayout&& forget_layout) {
  out->clear();
  check_frame(gray, pitch_bytes, width, height, 1);
  try {
    run();
  } catch (const std::bad_alloc&) {
    forget_layout();
    out->clear();
    throw Error(ErrorCode::kOutOfMemory, "out of host memory for a " + std::to_string(width) + "x" +
                                             std::to_string(height) + " frame");
  }
}

}  // namespace gpusift::cpu
