// SPDX-License-Identifier: LGPL-2.1-or-later
// A caller's frame as the extractors read it: pixel layout and where the pixels live.
#pragma once

#include <cstddef>

namespace gpusift {

enum class PixelFormat { kGray8, kRgb8, kBgr8, kRgba8, kBgra8, kRgbx8, kBgrx8 };
enum class MemoryKind { kHost, kDevice };

// The range of the frame's 8-bit luma (or of its RGB values): full (0-255), or limited ("studio"
// or "video" range: black at 16, white at 235), as most YUV video from cameras and decoders is.
// Both backends bring limited values to full range before anything else, so that a picture gives
// the same features whatever format it arrives in (color.h: full_range_luma).
enum class LumaRange { kFull, kLimited };

inline int bytes_per_pixel(PixelFormat format) {
  switch (format) {
    case PixelFormat::kGray8:
      return 1;
    case PixelFormat::kRgb8:
    case PixelFormat::kBgr8:
      return 3;
    case PixelFormat::kRgba8:
    case PixelFormat::kBgra8:
    case PixelFormat::kRgbx8:
    case PixelFormat::kBgrx8:
      return 4;
  }
  return 0;
}

// Byte offsets of red and blue within a pixel (green is always 1); -1 for gray.
inline int red_offset(PixelFormat format) {
  switch (format) {
    case PixelFormat::kRgb8:
    case PixelFormat::kRgba8:
    case PixelFormat::kRgbx8:
      return 0;
    case PixelFormat::kBgr8:
    case PixelFormat::kBgra8:
    case PixelFormat::kBgrx8:
      return 2;
    case PixelFormat::kGray8:
      break;
  }
  return -1;
}

// Host memory (pinned or pageable) or device memory of the extractor's device. For YUV frames
// pass the luma plane as kGray8.
struct FrameView {
  const void* data;
  size_t pitch_bytes;
  int width;
  int height;
  PixelFormat format;
  MemoryKind memory;
  LumaRange luma_range = LumaRange::kFull;
};

}  // namespace gpusift
