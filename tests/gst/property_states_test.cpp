// SPDX-License-Identifier: LGPL-2.1-or-later
// One rule for the properties of gpusiftfilter, keypointtracker and keypointmatcher: one flagged
// changeable only in NULL and READY is refused while the element runs, with a warning, and keeps
// the value in use; one flagged changeable in PLAYING (method) applies from the next frame on.
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>

#include <string>
#include <vector>

#include "frame_factory.h"
#include "gst_test_support.h"
#include "test_images.h"

namespace {

using gpusift::testing::make_frame;
using gst_test::LogCounter;
using gst_test::property_as_string;

// Sets `name` from its serialised `text` while the element runs; true when it was refused with
// one warning and kept its value.
bool refused_while_playing(GstElement* element, const char* name, const char* text) {
  const std::string before = property_as_string(element, name);
  const int warnings_before = LogCounter::warnings();
  gst_util_set_object_arg(G_OBJECT(element), name, text);
  return LogCounter::warnings() == warnings_before + 1 &&
         property_as_string(element, name) == before;
}

bool ready_only(GstElement* element, const char* name) {
  GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(element), name);
  return (spec->flags & GST_PARAM_MUTABLE_READY) != 0;
}

GstHarness* playing(const std::string& launch) {
  GstHarness* h = gst_harness_new_parse(launch.c_str());
  gst_harness_set_src_caps_str(h, "video/x-raw,format=GRAY8,width=160,height=120,framerate=30/1");
  gst_harness_play(h);
  return h;
}

GstElement* element_named(GstHarness* h, const char* name) {
  return gst_bin_get_by_name(GST_BIN(h->element), name);
}

TEST(PropertyStates, ReadyOnlyPropertiesAreRefusedWhileRunningAndKeepTheirValue) {
  GstHarness* h = playing(
      "gpusiftfilter name=f backend=cpu ! keypointtracker name=t backend=cpu ! "
      "keypointmatcher name=m backend=cpu reference=" +
      gpusift::testing::test_data_path("astronaut.png"));
  GstElement* f = element_named(h, "f");
  GstElement* t = element_named(h, "t");
  GstElement* m = element_named(h, "m");
  const cv::Mat frame = gpusift::testing::load_bgr("astronaut.png");
  cv::Mat small;
  cv::resize(frame, small, cv::Size(160, 120));
  ASSERT_EQ(gst_harness_push(h, make_frame(small, GST_VIDEO_FORMAT_GRAY8)), GST_FLOW_OK);
  gst_buffer_unref(gst_harness_pull(h));

  struct Change {
    GstElement* element;
    const char* name;
    const char* value;
  };
  const std::vector<Change> changes = {
      {f, "backend", "cuda"},           {f, "cuda-device-id", "3"},
      {f, "max-frames-in-flight", "2"}, {f, "host-frame-access", "mapped"},
      {t, "backend", "cuda"},           {t, "cuda-device-id", "3"},
      {t, "max-frames-in-flight", "2"}, {m, "backend", "cuda"},
      {m, "cuda-device-id", "3"},       {m, "reference", "/elsewhere.png"},
  };
  for (const Change& c : changes) {
    EXPECT_TRUE(ready_only(c.element, c.name)) << c.name;
    EXPECT_TRUE(refused_while_playing(c.element, c.name, c.value)) << c.name;
  }
  // Still running on what it started with.
  ASSERT_EQ(gst_harness_push(h, make_frame(small, GST_VIDEO_FORMAT_GRAY8)), GST_FLOW_OK);
  gst_buffer_unref(gst_harness_pull(h));

  // Back in READY the same values are taken.
  gst_element_set_state(h->element, GST_STATE_READY);
  gst_util_set_object_arg(G_OBJECT(t), "max-frames-in-flight", "2");
  EXPECT_EQ(property_as_string(t, "max-frames-in-flight"), "2");
  for (GstElement* e : {f, t, m})
    gst_object_unref(e);
  gst_harness_teardown(h);
}

TEST(PropertyStates, MethodAppliesFromTheNextFrame) {
  GstHarness* h = playing("gpusiftfilter name=f backend=cpu");
  GstElement* f = element_named(h, "f");
  EXPECT_FALSE(ready_only(f, "method"));
  const cv::Mat frame = gpusift::testing::load_bgr("astronaut.png");
  cv::Mat small;
  cv::resize(frame, small, cv::Size(160, 120));
  std::vector<GstKeypointsMethod> methods;
  for (int i = 0; i < 6; ++i) {
    if (i == 3)
      gst_util_set_object_arg(G_OBJECT(f), "method", "surf");
    ASSERT_EQ(gst_harness_push(h, make_frame(small, GST_VIDEO_FORMAT_GRAY8)), GST_FLOW_OK);
    GstBuffer* out = gst_harness_pull(h);
    const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(out);
    ASSERT_NE(meta, nullptr);
    methods.push_back(meta->method);
    gst_buffer_unref(out);
  }
  const std::vector<GstKeypointsMethod> expected = {
      GST_KEYPOINTS_METHOD_SIFT, GST_KEYPOINTS_METHOD_SIFT, GST_KEYPOINTS_METHOD_SIFT,
      GST_KEYPOINTS_METHOD_SURF, GST_KEYPOINTS_METHOD_SURF, GST_KEYPOINTS_METHOD_SURF};
  EXPECT_EQ(methods, expected);
  gst_object_unref(f);
  gst_harness_teardown(h);
}

}  // namespace
