// SPDX-License-Identifier: LGPL-2.1-or-later
#include "reference_image.h"

#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstring>

#include "base/video_luma_range.h"

namespace gpusift::gst {

namespace {

// The location is set as a property, not spliced into the description, so that no file name
// needs quoting. The caps filter's list lets videoconvert keep gray images gray.
constexpr const char* kDecoder =
    "filesrc name=source ! decodebin ! videoconvert ! capsfilter name=format ! "
    "appsink name=sink sync=false max-buffers=1";

std::string error_text(GstMessage* message) {
  GError* error = nullptr;
  gchar* debug = nullptr;
  gst_message_parse_error(message, &error, &debug);
  std::string text = error ? error->message : "unknown error";
  if (debug)
    text += std::string(" (") + debug + ")";
  g_clear_error(&error);
  g_free(debug);
  return text;
}

// Waits for the first frame to reach the sink (preroll) or for an error.
bool wait_for_preroll(GstElement* pipeline, int timeout_seconds, std::string* problem) {
  GstBus* bus = gst_element_get_bus(pipeline);
  const bool started =
      gst_element_set_state(pipeline, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE;
  const GstClockTime wait = started ? static_cast<GstClockTime>(timeout_seconds) * GST_SECOND : 0;
  GstMessage* message = gst_bus_timed_pop_filtered(
      bus, wait, static_cast<GstMessageType>(GST_MESSAGE_ASYNC_DONE | GST_MESSAGE_ERROR));
  gst_object_unref(bus);
  bool prerolled = false;
  if (message && GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR)
    *problem = error_text(message);
  else if (message)
    prerolled = true;
  else if (started)
    *problem = "no frame came out within " + std::to_string(timeout_seconds) + " s";
  else
    *problem = "the decoding pipeline did not start";
  if (message)
    gst_message_unref(message);
  return prerolled;
}

bool copy_frame(GstSample* sample, DecodedImage* out, std::string* problem) {
  GstVideoInfo info;
  if (!gst_video_info_from_caps(&info, gst_sample_get_caps(sample))) {
    *problem = "the decoder's output has no usable video caps";
    return false;
  }
  GstVideoFrame frame;
  if (!gst_video_frame_map(&frame, &info, gst_sample_get_buffer(sample), GST_MAP_READ)) {
    *problem = "cannot map the decoded frame";
    return false;
  }
  const bool gray = GST_VIDEO_FRAME_FORMAT(&frame) == GST_VIDEO_FORMAT_GRAY8;
  out->width = GST_VIDEO_FRAME_WIDTH(&frame);
  out->height = GST_VIDEO_FRAME_HEIGHT(&frame);
  out->format = gray ? PixelFormat::kGray8 : PixelFormat::kRgbx8;
  out->luma_range = luma_range_of(info);
  out->pitch_bytes = static_cast<size_t>(out->width) * (gray ? 1 : 4);
  out->pixels.resize(out->pitch_bytes * static_cast<size_t>(out->height));
  const auto* source = static_cast<const uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0));
  const size_t stride = static_cast<size_t>(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0));
  for (int row = 0; row < out->height; ++row)
    std::memcpy(out->pixels.data() + row * out->pitch_bytes, source + row * stride,
                out->pitch_bytes);
  gst_video_frame_unmap(&frame);
  return true;
}

}  // namespace

bool decode_image_file(const std::string& path, int timeout_seconds, DecodedImage* out,
                       std::string* problem) {
  GError* error = nullptr;
  GstElement* pipeline =
      gst_parse_launch_full(kDecoder, nullptr, GST_PARSE_FLAG_FATAL_ERRORS, &error);
  if (!pipeline) {
    *problem = std::string("cannot build the decoding pipeline: ") +
               (error ? error->message : "unknown error");
    g_clear_error(&error);
    return false;
  }
  GstElement* source = gst_bin_get_by_name(GST_BIN(pipeline), "source");
  GstElement* format = gst_bin_get_by_name(GST_BIN(pipeline), "format");
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  g_object_set(source, "location", path.c_str(), nullptr);
  GstCaps* caps = gst_caps_from_string("video/x-raw,format=(string){ GRAY8, RGBx }");
  g_object_set(format, "caps", caps, nullptr);
  gst_caps_unref(caps);

  bool decoded = false;
  if (wait_for_preroll(pipeline, timeout_seconds, problem)) {
    GstSample* sample = gst_app_sink_try_pull_preroll(GST_APP_SINK(sink), 0);
    if (sample) {
      decoded = copy_frame(sample, out, problem);
      gst_sample_unref(sample);
    } else {
      *problem = "the file holds no video frame";
    }
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(source);
  gst_object_unref(format);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
  return decoded;
}

}  // namespace gpusift::gst
