// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gst_image_io.h"

#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include <cstdio>

#include "pipeline_launch.h"

namespace gpusift::demo {
namespace {

// The text of the bus's first error message, removed from the bus; empty when there is none.
std::string pop_error(GstBus* bus) {
  GstMessage* message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  if (!message)
    return "";
  GError* error = nullptr;
  gst_message_parse_error(message, &error, nullptr);
  std::string text = error->message;
  g_clear_error(&error);
  gst_message_unref(message);
  return text;
}

}  // namespace

cv::Mat read_image_bgr(const std::string& path) {
  gchar* escaped = g_strescape(path.c_str(), nullptr);
  const std::string description = std::string("filesrc location=\"") + escaped +
                                  "\" ! decodebin ! videoconvert ! video/x-raw,format=BGR ! "
                                  "appsink name=sink sync=false";
  g_free(escaped);
  GstElement* pipeline = launch_pipeline(description);
  if (!pipeline)
    return cv::Mat();
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  // Waits in slices so that an unreadable or undecodable file ends the wait at its error.
  GstSample* sample = nullptr;
  GstBus* bus = gst_element_get_bus(pipeline);
  std::string error;
  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE) {
    for (int slice = 0; slice < 100 && !sample && error.empty(); ++slice) {
      sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), GST_SECOND / 10);
      error = pop_error(bus);
    }
  }
  if (error.empty())
    error = pop_error(bus);
  gst_object_unref(bus);
  cv::Mat image;
  GstVideoInfo info;
  GstVideoFrame frame;
  if (sample && gst_video_info_from_caps(&info, gst_sample_get_caps(sample)) &&
      gst_video_frame_map(&frame, &info, gst_sample_get_buffer(sample), GST_MAP_READ)) {
    image = cv::Mat(GST_VIDEO_FRAME_HEIGHT(&frame), GST_VIDEO_FRAME_WIDTH(&frame), CV_8UC3,
                    GST_VIDEO_FRAME_PLANE_DATA(&frame, 0), GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0))
                .clone();
    gst_video_frame_unmap(&frame);
  } else {
    std::fprintf(stderr, "gpusift-demo: cannot decode image %s: %s\n", path.c_str(),
                 error.empty() ? "no frame came out" : error.c_str());
  }
  if (sample)
    gst_sample_unref(sample);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
  return image;
}

bool write_png(GstBuffer* buffer, GstCaps* caps, const std::string& path) {
  GstSample* sample = gst_sample_new(buffer, caps, nullptr, nullptr);
  GstCaps* png_caps = gst_caps_new_empty_simple("image/png");
  GError* error = nullptr;
  GstSample* png = gst_video_convert_sample(sample, png_caps, 10 * GST_SECOND, &error);
  gst_caps_unref(png_caps);
  gst_sample_unref(sample);
  if (!png) {
    std::fprintf(stderr, "gpusift-demo: PNG: %s\n", error ? error->message : "failed");
    g_clear_error(&error);
    return false;
  }
  GstMapInfo map;
  GstBuffer* bytes = gst_sample_get_buffer(png);
  bool ok = gst_buffer_map(bytes, &map, GST_MAP_READ) &&
            g_file_set_contents(path.c_str(), reinterpret_cast<const gchar*>(map.data),
                                static_cast<gssize>(map.size), nullptr);
  if (map.data)
    gst_buffer_unmap(bytes, &map);
  gst_sample_unref(png);
  return ok;
}

}  // namespace gpusift::demo
