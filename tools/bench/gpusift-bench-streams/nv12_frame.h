// SPDX-License-Identifier: LGPL-2.1-or-later
// A real image as a 4:2:0 frame with interleaved chroma (NV12), as decoders and cudaupload pass
// it on, in pinned host memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <opencv2/core.hpp>
#include <vector>

#include "gpusift/frame.h"

namespace gpusift::tools {

// `image` (BGR or gray) scaled to width x height (even), as NV12 bytes: the luma rows, then the
// interleaved U and V rows.
std::vector<uint8_t> make_nv12(const cv::Mat& image, int width, int height);

class PinnedNv12Frame {
 public:
  PinnedNv12Frame(const std::vector<uint8_t>& nv12, int width, int height);
  ~PinnedNv12Frame();
  PinnedNv12Frame(const PinnedNv12Frame&) = delete;
  PinnedNv12Frame& operator=(const PinnedNv12Frame&) = delete;
  // The extractors read a YUV frame's luma plane as GRAY8.
  FrameView luma() const;

 private:
  void* data_ = nullptr;
  int width_;
  int height_;
};

}  // namespace gpusift::tools
