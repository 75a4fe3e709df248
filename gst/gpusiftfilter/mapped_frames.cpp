// SPDX-License-Identifier: LGPL-2.1-or-later
#include "mapped_frames.h"

#include <utility>

namespace gpusift::gst {

void FrameMapping::unmap() {
#ifdef GPUSIFT_HAVE_NVMM
  if (nvmm) {
    nvmm.reset();
    return;
  }
#endif
  gst_video_frame_unmap(&video);
}

void MappedFrames::hold(FrameMapping mapping, const FrameView& view, gint64 submit_us) {
  frames_.push_back(Frame{std::move(mapping), view, submit_us});
}

gint64 MappedFrames::release_oldest() {
  Frame& oldest = frames_.front();
  oldest.mapping.unmap();
  const gint64 submit_us = oldest.submit_us;
  frames_.pop_front();
  return submit_us;
}

void MappedFrames::drop_all() {
  for (Frame& frame : frames_)
    frame.mapping.unmap();
  frames_.clear();
}

}  // namespace gpusift::gst
