/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpusiftfilter's frames between the extractor's submit() and collect(), oldest first. Each buffer
 * stays mapped until its frame's results are in, because the extractor may read its pixels until
 * then. */
#pragma once

#include <gst/video/video.h>

#include <cstddef>
#include <deque>

#include "gpusift/frame.h"

#ifdef GPUSIFT_HAVE_NVMM
#include <memory>

#include "nvmm_frame.h"
#endif

namespace gpusift::gst {

class FramesInFlight {
 public:
  FramesInFlight() = default;
  ~FramesInFlight() { drop_all(); }
  FramesInFlight(const FramesInFlight&) = delete;
  FramesInFlight& operator=(const FramesInFlight&) = delete;

  bool empty() const { return frames_.empty(); }
  size_t size() const { return frames_.size(); }

  // Takes `buffer` (the buffer that leaves with the results) and `mapping` of it, which `view`
  // reads; submit_us: the time the submit took.
  void hold(GstBuffer* buffer, const GstVideoFrame& mapping, const FrameView& view,
            gint64 submit_us);
  // Of the oldest frame: its pixels, still mapped.
  const FrameView& oldest_view() const { return frames_.front().view; }
  // The oldest frame's buffer, unmapped (so writable again unless shared), for the caller.
  GstBuffer* release_oldest(gint64* submit_us);
  // Unmaps and releases them all: only once the extractor no longer reads them.
  void drop_all();
#ifdef GPUSIFT_HAVE_NVMM
  // As hold(), for a memory:NVMM frame, whose pixels `nvmm` keeps registered with CUDA.
  void hold(GstBuffer* buffer, std::unique_ptr<NvmmFrame> nvmm, const FrameView& view,
            gint64 submit_us);
#endif

 private:
  struct Frame {
    GstBuffer* buffer;
    GstVideoFrame mapping;
    FrameView view;
    gint64 submit_us;
#ifdef GPUSIFT_HAVE_NVMM
    std::unique_ptr<NvmmFrame> nvmm = nullptr;  // instead of `mapping` when set
#endif
  };
  static void unmap(Frame* frame);

  std::deque<Frame> frames_;
};

}  // namespace gpusift::gst
