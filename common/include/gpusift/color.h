// SPDX-License-Identifier: LGPL-2.1-or-later
// RGB to gray exactly as OpenCV 4's cv::cvtColor does for 8-bit images (15-bit fixed point of
// 0.299 R + 0.587 G + 0.114 B), so that both backends see OpenCV's gray frame.
#pragma once

#include <cstdint>

#include "gpusift/frame.h"
#include "gpusift/hostdevice.h"

namespace gpusift {

GPUSIFT_HD uint8_t rgb_to_gray8(uint32_t r, uint32_t g, uint32_t b) {
  return static_cast<uint8_t>((r * 9798u + g * 19235u + b * 3735u + (1u << 14)) >> 15);
}

// A limited-range value (16-235) at full range: (y - 16) * 255 / 219, rounded half up, clamped to
// 0..255. In exact integers, so that both backends (and OpenCV's own limited-to-full conversions,
// which round the same way) agree bit for bit.
GPUSIFT_HD uint8_t full_range_luma(uint32_t y) {
  if (y <= 16u)
    return 0;
  if (y >= 235u)
    return 255;
  return static_cast<uint8_t>(((y - 16u) * 510u + 219u) / 438u);
}

// The full-range value of an 8-bit sample in `range`.
GPUSIFT_HD uint8_t luma_at_full_range(uint8_t value, LumaRange range) {
  return range == LumaRange::kLimited ? full_range_luma(value) : value;
}

// The gray value of one pixel of `format` (3 or 4 bytes for the RGB family, 1 for gray).
GPUSIFT_HD uint8_t gray8_of_pixel(const uint8_t* px, PixelFormat format) {
  switch (format) {
    case PixelFormat::kGray8:
      return px[0];
    case PixelFormat::kRgb8:
    case PixelFormat::kRgba8:
    case PixelFormat::kRgbx8:
      return rgb_to_gray8(px[0], px[1], px[2]);
    case PixelFormat::kBgr8:
    case PixelFormat::kBgra8:
    case PixelFormat::kBgrx8:
      return rgb_to_gray8(px[2], px[1], px[0]);
  }
  return 0;
}

}  // namespace gpusift
