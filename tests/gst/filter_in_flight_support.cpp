// SPDX-License-Identifier: LGPL-2.1-or-later
#include "filter_in_flight_support.h"

#include <gst/keypoints/gstkeypointsmeta.h>

#include <algorithm>

#include "frame_factory.h"
#include "test_images.h"

namespace gpusift::testing {

GstHarness* filter_harness(const std::string& properties, const std::string& caps) {
  GstElement* filter = gst_element_factory_make("gpusiftfilter", nullptr);
  gchar** assignments = g_strsplit(properties.c_str(), " ", -1);
  for (gchar** a = assignments; *a; ++a) {
    gchar** pair = g_strsplit(*a, "=", 2);
    if (pair[0] && pair[1])
      gst_util_set_object_arg(G_OBJECT(filter), pair[0], pair[1]);
    g_strfreev(pair);
  }
  g_strfreev(assignments);
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(filter, bus);
  gst_object_unref(bus);
  GstHarness* h = gst_harness_new_with_element(filter, "sink", "src");
  gst_object_unref(filter);
  if (!caps.empty())
    gst_harness_set_src_caps_str(h, caps.c_str());
  return h;
}

void teardown_filter(GstHarness* h) {
  GstBus* bus = gst_element_get_bus(h->element);
  if (bus) {
    gst_bus_set_flushing(bus, TRUE);
    gst_object_unref(bus);
  }
  gst_harness_teardown(h);
}

std::string first_error(GstHarness* h) {
  GstBus* bus = gst_element_get_bus(h->element);
  std::string text;
  if (GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR)) {
    GError* error = nullptr;
    gchar* debug = nullptr;
    gst_message_parse_error(m, &error, &debug);
    text = std::string(error->message) + " | " + (debug ? debug : "");
    g_clear_error(&error);
    g_free(debug);
    gst_message_unref(m);
  }
  gst_object_unref(bus);
  return text;
}

std::vector<cv::Mat> different_frames(int count, int width, int height) {
  const cv::Mat sources[] = {load_gray("astronaut.png"), load_gray("coffee.png")};
  std::vector<cv::Mat> frames;
  for (int i = 0; i < count; ++i) {
    const cv::Mat& source = sources[i % 2];
    if (source.empty())
      return {};
    const int x = std::min(7 * i, source.cols - width), y = std::min(5 * i, source.rows - height);
    frames.push_back(source(cv::Rect(x, y, width, height)).clone());
  }
  return frames;
}

GstClockTime frame_pts(int index) {
  return gst_util_uint64_scale_int(index, GST_SECOND, 30);
}

GstBuffer* gray_buffer(const cv::Mat& gray, int index) {
  GstBuffer* buffer = make_frame(gray, GST_VIDEO_FORMAT_GRAY8);
  GST_BUFFER_PTS(buffer) = frame_pts(index);
  GST_BUFFER_DURATION(buffer) = frame_pts(index + 1) - frame_pts(index);
  return buffer;
}

bool MetaBytes::operator==(const MetaBytes& o) const {
  return present == o.present && width == o.width && height == o.height && method == o.method &&
         descriptor_type == o.descriptor_type && descriptor_size == o.descriptor_size &&
         keypoints == o.keypoints && descriptors == o.descriptors;
}

MetaBytes meta_bytes(GstBuffer* buffer) {
  MetaBytes bytes;
  const GstKeypointsMeta* meta = buffer ? gst_buffer_get_keypoints_meta(buffer) : nullptr;
  if (!meta)
    return bytes;
  bytes.present = true;
  bytes.width = meta->width;
  bytes.height = meta->height;
  bytes.method = meta->method;
  bytes.descriptor_type = meta->descriptor_type;
  bytes.descriptor_size = meta->descriptor_size;
  const auto* k = reinterpret_cast<const unsigned char*>(meta->keypoints);
  bytes.keypoints.assign(k, k + meta->n_keypoints * sizeof(GstKeypoint));
  if (meta->descriptors) {
    const size_t value_size = meta->descriptor_type == GST_KEYPOINTS_DESCRIPTOR_UINT8 ? 1 : 4;
    const auto* d = static_cast<const unsigned char*>(meta->descriptors);
    bytes.descriptors.assign(d, d + meta->n_keypoints * meta->descriptor_size * value_size);
  }
  return bytes;
}

GstClockTime reported_latency(GstHarness* h) {
  GstQuery* query = gst_query_new_latency();
  GstClockTime min = GST_CLOCK_TIME_NONE;
  if (gst_pad_peer_query(h->sinkpad, query))
    gst_query_parse_latency(query, nullptr, &min, nullptr);
  gst_query_unref(query);
  return min;
}

}  // namespace gpusift::testing
