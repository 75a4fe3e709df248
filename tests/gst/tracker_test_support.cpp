// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tracker_test_support.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace gpusift::testing {

GstHarness* element_harness(const std::string& factory, const std::string& properties) {
  GstElement* element = gst_element_factory_make(factory.c_str(), nullptr);
  if (!element)
    return nullptr;
  gchar** assignments = g_strsplit(properties.c_str(), " ", -1);
  for (gchar** a = assignments; *a; ++a) {
    gchar** pair = g_strsplit(*a, "=", 2);
    if (pair[0] && pair[1])
      gst_util_set_object_arg(G_OBJECT(element), pair[0], pair[1]);
    g_strfreev(pair);
  }
  g_strfreev(assignments);
  GstHarness* h = gst_harness_new_with_element(element, "sink", "src");
  gst_object_unref(element);
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(h->element, bus);
  gst_object_unref(bus);
  return h;
}

void teardown_harness(GstHarness* h) {
  GstBus* bus = gst_element_get_bus(h->element);
  if (bus) {
    gst_bus_set_flushing(bus, TRUE);
    gst_object_unref(bus);
  }
  gst_harness_teardown(h);
}

std::vector<GstMessage*> bus_messages(GstHarness* h, GstMessageType type) {
  std::vector<GstMessage*> found;
  GstBus* bus = gst_element_get_bus(h->element);
  if (!bus)
    return found;
  while (GstMessage* m = gst_bus_pop_filtered(bus, type))
    found.push_back(m);
  gst_object_unref(bus);
  return found;
}

void unref_all(std::vector<GstMessage*>* messages) {
  for (GstMessage* m : *messages)
    gst_message_unref(m);
  messages->clear();
}

SyntheticScene random_scene(int count, cv::Size area, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> x(20.0f, area.width - 20.0f), y(20.0f, area.height - 20.0f);
  std::normal_distribution<float> value(0.0f, 1.0f);
  SyntheticScene scene;
  for (int i = 0; i < count; ++i) {
    scene.points.emplace_back(x(random), y(random));
    std::vector<float> row(128);
    double norm = 0.0;
    for (float& v : row) {
      v = std::abs(value(random));
      norm += v * v;
    }
    for (float& v : row)
      scene.descriptors.push_back(static_cast<float>(v / std::sqrt(norm)));
  }
  return scene;
}

SyntheticFrame synthetic_frame(const SyntheticScene& scene, const cv::Matx33d& motion, float noise,
                               unsigned seed, const std::vector<int>& order) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> jitter(-noise, noise);
  std::vector<int> indices = order;
  if (indices.empty()) {
    for (size_t i = 0; i < scene.points.size(); ++i)
      indices.push_back(static_cast<int>(i));
  }
  SyntheticFrame frame;
  for (int i : indices) {
    const cv::Point2f p = scene.points[static_cast<size_t>(i)];
    const cv::Vec3d q = motion * cv::Vec3d(p.x, p.y, 1.0);
    const float x = static_cast<float>(q[0] / q[2]) + jitter(random);
    const float y = static_cast<float>(q[1] / q[2]) + jitter(random);
    frame.keypoints.push_back(GstKeypoint{x, y, 6.0f, 0.0f, 0.05f, 0, -1});
    frame.descriptors.insert(frame.descriptors.end(),
                             scene.descriptors.begin() + static_cast<std::ptrdiff_t>(i) * 128,
                             scene.descriptors.begin() + static_cast<std::ptrdiff_t>(i + 1) * 128);
    frame.scene_index.push_back(i);
  }
  return frame;
}

GstBuffer* buffer_with_keypoints(const SyntheticFrame& frame, cv::Size size) {
  const gsize bytes = static_cast<gsize>(size.width) * static_cast<gsize>(size.height);
  GstBuffer* buffer = gst_buffer_new_allocate(nullptr, bytes, nullptr);
  gst_buffer_memset(buffer, 0, 0x40, bytes);
  gst_buffer_add_keypoints_meta(buffer, GST_KEYPOINTS_METHOD_SIFT, static_cast<guint>(size.width),
                                static_cast<guint>(size.height), frame.keypoints.data(),
                                static_cast<guint>(frame.keypoints.size()),
                                GST_KEYPOINTS_DESCRIPTOR_FLOAT32, 128, frame.descriptors.data());
  return buffer;
}

GstBuffer* push_and_pull(GstHarness* h, GstBuffer* buffer) {
  if (gst_harness_push(h, buffer) != GST_FLOW_OK)
    return nullptr;
  return gst_harness_pull(h);
}

MatcherReport last_matcher_report(GstHarness* h) {
  MatcherReport report;
  auto messages = bus_messages(h, GST_MESSAGE_ELEMENT);
  for (GstMessage* m : messages) {
    const GstStructure* s = gst_message_get_structure(m);
    if (!gst_structure_has_name(s, "keypointmatcher"))
      continue;
    report = MatcherReport{};
    gboolean found = FALSE;
    gst_structure_get_boolean(s, "found", &found);
    report.found = found;
    gst_structure_get_uint(s, "matches", &report.matches);
    gst_structure_get_uint(s, "inliers", &report.inliers);
    const char* reason = gst_structure_get_string(s, "reason");
    report.reason = reason ? reason : "";
    if (const GValue* corners = gst_structure_get_value(s, "corners")) {
      for (guint i = 0; i < gst_value_array_get_size(corners); ++i)
        report.corners.push_back(g_value_get_double(gst_value_array_get_value(corners, i)));
    }
  }
  unref_all(&messages);
  return report;
}

cv::Matx33d matrix_of(const gdouble* m) {
  return cv::Matx33d(m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]);
}

namespace {

std::vector<double> corner_errors(const cv::Matx33d& a, const cv::Matx33d& b, cv::Size frame) {
  std::vector<double> errors;
  const double w = frame.width - 1.0, h = frame.height - 1.0;
  for (const cv::Vec3d& corner :
       {cv::Vec3d(0, 0, 1), cv::Vec3d(w, 0, 1), cv::Vec3d(0, h, 1), cv::Vec3d(w, h, 1)}) {
    const cv::Vec3d p = a * corner, q = b * corner;
    errors.push_back(std::hypot(p[0] / p[2] - q[0] / q[2], p[1] / p[2] - q[1] / q[2]));
  }
  return errors;
}

}  // namespace

double corner_error(const cv::Matx33d& a, const cv::Matx33d& b, cv::Size frame) {
  const std::vector<double> errors = corner_errors(a, b, frame);
  return *std::max_element(errors.begin(), errors.end());
}

double median_corner_error(const cv::Matx33d& a, const cv::Matx33d& b, cv::Size frame) {
  std::vector<double> errors = corner_errors(a, b, frame);
  std::sort(errors.begin(), errors.end());
  return (errors[1] + errors[2]) / 2.0;
}

}  // namespace gpusift::testing
