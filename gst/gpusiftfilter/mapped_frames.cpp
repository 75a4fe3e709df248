// SPDX-License-Identifier: LGPL-2.1-or-later
#include "mapped_frames.h"

#include <utility>

namespace gpusift::gst {

void MappedFrames::hold(const GstVideoFrame& mapping, const FrameView& view, gint64 submit_us) {
  frames_.push_back(Frame{mapping, view, submit_us});
}

#ifdef GPUSIFT_HAVE_NVMM
void MappedFrames::hold(std::unique_ptr<NvmmFrame> nvmm, const FrameView& view, gint64 submit_us) {
  frames_.push_back(Frame{GstVideoFrame{}, view, submit_us, std::move(nvmm)});
}
#endif

gint64 MappedFrames::release_oldest() {
  Frame& oldest = frames_.front();
  unmap(&oldest);
  const gint64 submit_us = oldest.submit_us;
  frames_.pop_front();
  return submit_us;
}

void MappedFrames::drop_all() {
  for (Frame& frame : frames_)
    unmap(&frame);
  frames_.clear();
}

void MappedFrames::unmap(Frame* frame) {
#ifdef GPUSIFT_HAVE_NVMM
  if (frame->nvmm) {
    frame->nvmm.reset();
    return;
  }
#endif
  gst_video_frame_unmap(&frame->mapping);
}

}  // namespace gpusift::gst
