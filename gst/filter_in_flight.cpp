#include "filter_in_flight.h"

namespace gpusift::gst {

void FramesInFlight::hold(GstBuffer* buffer, const GstVideoFrame& mapping, const FrameView& view,
                          gint64 submit_us) {
  frames_.push_back(Frame{buffer, mapping, view, submit_us});
}

GstBuffer* FramesInFlight::release_oldest(gint64* submit_us) {
  Frame& oldest = frames_.front();
  gst_video_frame_unmap(&oldest.mapping);
  GstBuffer* buffer = oldest.buffer;
  *submit_us = oldest.submit_us;
  frames_.pop_front();
  return buffer;
}

void FramesInFlight::drop_all() {
  for (Frame& frame : frames_) {
    gst_video_frame_unmap(&frame.mapping);
    gst_buffer_unref(frame.buffer);
  }
  frames_.clear();
}

}  // namespace gpusift::gst
