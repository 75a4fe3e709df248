// RGB to gray exactly as OpenCV 4's cv::cvtColor does for 8-bit images (15-bit fixed point of
// 0.299 R + 0.587 G + 0.114 B), so that both backends see OpenCV's gray frame.
#pragma once

#include <cstdint>

#include "gpusift/hostdevice.h"

namespace gpusift {

GPUSIFT_HD uint8_t rgb_to_gray8(uint32_t r, uint32_t g, uint32_t b) {
  return static_cast<uint8_t>((r * 9798u + g * 19235u + b * 3735u + (1u << 14)) >> 15);
}

}  // namespace gpusift
