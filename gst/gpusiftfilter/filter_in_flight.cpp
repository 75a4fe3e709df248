// SPDX-License-Identifier: LGPL-2.1-or-later
#include "filter_in_flight.h"

#include <utility>

namespace gpusift::gst {

void FramesInFlight::hold(GstBuffer* buffer, const GstVideoFrame& mapping, const FrameView& view,
                          gint64 submit_us) {
  frames_.push_back(Frame{buffer, mapping, view, submit_us});
}

#ifdef GPUSIFT_HAVE_NVMM
void FramesInFlight::hold(GstBuffer* buffer, std::unique_ptr<NvmmFrame> nvmm, const FrameView& view,
                          gint64 submit_us) {
  frames_.push_back(Frame{buffer, GstVideoFrame{}, view, submit_us, std::move(nvmm)});
}
#endif

GstBuffer* FramesInFlight::release_oldest(gint64* submit_us) {
  Frame& oldest = frames_.front();
  unmap(&oldest);
  GstBuffer* buffer = oldest.buffer;
  *submit_us = oldest.submit_us;
  frames_.pop_front();
  return buffer;
}

void FramesInFlight::drop_all() {
  for (Frame& frame : frames_) {
    unmap(&frame);
    gst_buffer_unref(frame.buffer);
  }
  frames_.clear();
}

void FramesInFlight::unmap(Frame* frame) {
#ifdef GPUSIFT_HAVE_NVMM
  if (frame->nvmm) {
    frame->nvmm.reset();
    return;
  }
#endif
  gst_video_frame_unmap(&frame->mapping);
}

}  // namespace gpusift::gst
