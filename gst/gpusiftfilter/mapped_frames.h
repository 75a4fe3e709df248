/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpusiftfilter's frames between the extractor's submit() and collect(), oldest first: the
 * mapping of each one's pixels, which stays until its results are in because the extractor may
 * read them until then. The buffers themselves are held by the base class, in the same order. */
#pragma once

#include <gst/video/video.h>

#include <cstddef>
#include <deque>

#include "base/non_copyable.h"
#include "gpusift/frame.h"

#ifdef GPUSIFT_HAVE_NVMM
#include <memory>

#include "nvmm_frame.h"
#endif

namespace gpusift::gst {

// The pixels of one input frame as the extractor reads them: a mapped GstVideoFrame, or with
// memory:NVMM caps an NvmmFrame, which keeps them registered with CUDA.
struct FrameMapping {
  GstVideoFrame video{};
#ifdef GPUSIFT_HAVE_NVMM
  std::unique_ptr<NvmmFrame> nvmm;  // instead of `video` when set
#endif
  // Once the extractor no longer reads them.
  void unmap();
};

class MappedFrames : NonCopyable {
 public:
  MappedFrames() = default;
  ~MappedFrames() { drop_all(); }

  bool empty() const { return frames_.empty(); }
  size_t size() const { return frames_.size(); }

  // Takes `mapping`, which `view` reads; submit_us: the time the submit took.
  void hold(FrameMapping mapping, const FrameView& view, gint64 submit_us);
  // Of the oldest frame: its pixels, still mapped.
  const FrameView& oldest_view() const { return frames_.front().view; }
  // Unmaps the oldest frame (its buffer is writable again unless shared); its submit time.
  gint64 release_oldest();
  // Unmaps them all: only once the extractor no longer reads them.
  void drop_all();

 private:
  struct Frame {
    FrameMapping mapping;
    FrameView view;
    gint64 submit_us;
  };

  std::deque<Frame> frames_;
};

}  // namespace gpusift::gst
