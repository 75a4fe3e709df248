/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* keypointmatcher's reference image: any file GStreamer decodes (its first frame for a video),
 * read through a small pipeline of GStreamer's own decoders. */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpusift/frame.h"

namespace gpusift::gst {

// Pixels as the extractor reads them: gray images stay gray, colour ones become RGBx, which the
// extractor turns gray with the weights it uses for colour video.
struct DecodedImage {
  int width = 0;
  int height = 0;
  PixelFormat format = PixelFormat::kGray8;
  size_t pitch_bytes = 0;
  LumaRange luma_range = LumaRange::kFull;  // as the decoder's caps say, like video frames
  std::vector<uint8_t> pixels;

  FrameView view() const {
    return FrameView{pixels.data(), pitch_bytes,       width,     height,
                     format,        MemoryKind::kHost, luma_range};
  }
};

// Decodes the file's first frame; waits at most timeout_seconds. False with `problem` (the
// pipeline's error, or why no frame came) when the file cannot be decoded.
bool decode_image_file(const std::string& path, int timeout_seconds, DecodedImage* out,
                       std::string* problem);

}  // namespace gpusift::gst
