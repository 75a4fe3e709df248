// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusiftfilter against hostile input on the CPU backend: buffers smaller than their caps, video
// metas whose planes leave the buffer, caps at and past the size limits, out-of-range property
// values from code, renegotiation on every frame, EOS before any buffer, flushing seeks and state
// changes under load. Each ends in a clear error or a correct result, never a crash or a hang.
#include <gst/app/gstappsrc.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <opencv2/imgproc.hpp>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "filter_in_flight_support.h"
#include "frame_factory.h"
#include "gpusift/cpu_sift.h"
#include "gpusift/cpu_surf.h"
#include "gst_test_support.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

using gst_test::live_objects_named;
using gst_test::LogCounter;
using gst_test::property_as_string;

SiftParams element_defaults() {
  return video_sift_params();
}

Features library_sift(const cv::Mat& gray) {
  CpuSiftExtractor library(element_defaults());
  return library.extract(gray.data, gray.step, gray.cols, gray.rows);
}

// The filter on the CPU backend as a harness element with a bus of its own.
GstHarness* cpu_filter() {
  return filter_harness("backend=cpu", "");
}

// memcmp wants valid pointers even for 0 bytes, and an empty array may have none.
bool same_bytes(const void* a, const void* b, size_t size) {
  return size == 0 || std::memcmp(a, b, size) == 0;
}

void expect_meta_equals(const GstKeypointsMeta* meta, const Features& expected) {
  ASSERT_NE(meta, nullptr);
  ASSERT_EQ(meta->n_keypoints, expected.keypoints.size());
  EXPECT_TRUE(same_bytes(meta->keypoints, expected.keypoints.data(),
                         expected.keypoints.size() * sizeof(Keypoint)));
  ASSERT_EQ(meta->descriptor_size, static_cast<guint>(expected.descriptor_size));
  EXPECT_TRUE(same_bytes(meta->descriptors, expected.float_descriptors.data(),
                         expected.float_descriptors.size() * sizeof(float)));
}

// Plays the pipeline until EOS or an error; the message, or nullptr after `timeout`.
GstMessage* play_to_end(GstElement* pipeline, GstClockTime timeout = 60 * GST_SECOND) {
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstBus* bus = gst_element_get_bus(pipeline);
  GstMessage* end = gst_bus_timed_pop_filtered(
      bus, timeout, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  gst_object_unref(bus);
  return end;
}

void stop_and_unref(GstElement* pipeline) {
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

std::string error_text(GstMessage* message) {
  GError* error = nullptr;
  gchar* debug = nullptr;
  gst_message_parse_error(message, &error, &debug);
  std::string text = std::string(error->message) + " | " + (debug ? debug : "");
  g_clear_error(&error);
  g_free(debug);
  return text;
}

// appsrc ! gpusiftfilter ! fakesink for GRAY8 frames of width x height.
GstElement* appsrc_pipeline(int width, int height) {
  const std::string description =
      "appsrc name=src format=time caps=" + caps_string(GST_VIDEO_FORMAT_GRAY8, width, height) +
      " ! gpusiftfilter name=f backend=cpu ! fakesink sync=false";
  return gst_parse_launch(description.c_str(), nullptr);
}

GstFlowReturn push_to_appsrc(GstElement* pipeline, GstBuffer* buffer) {
  GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  const GstFlowReturn flow = gst_app_src_push_buffer(GST_APP_SRC(src), buffer);
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  gst_object_unref(src);
  return flow;
}

TEST(GpusiftFilterHostile, BufferSmallerThanItsCapsIsAnErrorAndTheNextStreamWorks) {
  GstElement* pipeline = appsrc_pipeline(320, 240);
  ASSERT_NE(pipeline, nullptr);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  push_to_appsrc(pipeline, gst_buffer_new_allocate(nullptr, 1000, nullptr));
  GstMessage* end = play_to_end(pipeline);
  ASSERT_NE(end, nullptr) << "no EOS or error: the pipeline hangs";
  ASSERT_EQ(GST_MESSAGE_TYPE(end), GST_MESSAGE_ERROR);
  EXPECT_EQ(std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(end))), "f");
  const std::string text = error_text(end);
  EXPECT_NE(text.find("1000 bytes"), std::string::npos) << text;
  EXPECT_NE(text.find("76800"), std::string::npos) << text;
  gst_message_unref(end);
  stop_and_unref(pipeline);

  const cv::Mat gray = resized(load_gray("camera.png"), 320, 240);
  pipeline = appsrc_pipeline(320, 240);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  push_to_appsrc(pipeline, make_frame(gray, GST_VIDEO_FORMAT_GRAY8));
  end = play_to_end(pipeline);
  ASSERT_NE(end, nullptr);
  EXPECT_EQ(GST_MESSAGE_TYPE(end), GST_MESSAGE_EOS);
  gst_message_unref(end);
  stop_and_unref(pipeline);
}

// A video meta on a frame of kWidth x kHeight GRAY8 (or NV12) in a buffer of the caps' size.
constexpr int kWidth = 64;
constexpr int kHeight = 48;

struct BadVideoMeta {
  const char* name;
  GstVideoFormat format;
  int meta_width;
  int meta_height;
  gsize offset;
  gint stride;
  const char* message;  // part of the error's text
};

void PrintTo(const BadVideoMeta& bad, std::ostream* out) {
  *out << bad.name;
}

class VideoMetaCase : public ::testing::TestWithParam<BadVideoMeta> {};

TEST_P(VideoMetaCase, IsRefusedWithAnErrorWithoutReadingPastTheBuffer) {
  const BadVideoMeta& bad = GetParam();
  const cv::Mat gray = resized(load_gray("coins.png"), kWidth, kHeight);
  GstHarness* h = cpu_filter();
  gst_harness_set_src_caps_str(h, caps_string(bad.format, kWidth, kHeight).c_str());
  GstBuffer* buffer = make_frame(gray, bad.format);
  gsize offsets[GST_VIDEO_MAX_PLANES] = {bad.offset, bad.offset + kWidth * kHeight};
  gint strides[GST_VIDEO_MAX_PLANES] = {bad.stride, kWidth};
  const guint planes = bad.format == GST_VIDEO_FORMAT_NV12 ? 2 : 1;
  gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, bad.format, bad.meta_width,
                                 bad.meta_height, planes, offsets, strides);
  const int criticals_before = LogCounter::criticals();
  EXPECT_NE(gst_harness_push(h, buffer), GST_FLOW_OK);
  EXPECT_EQ(LogCounter::criticals(), criticals_before) << "refused by a critical, not an error";
  EXPECT_EQ(gst_harness_buffers_received(h), 0u);
  const std::string text = first_error(h);
  EXPECT_NE(text.find(bad.message), std::string::npos) << text;

  // The element still works: a frame with an honest, padded meta gives the library's keypoints.
  GstVideoInfo padded;
  gst_video_info_set_format(&padded, GST_VIDEO_FORMAT_GRAY8, kWidth, kHeight);
  const gint stride = kWidth + 16;
  GstBuffer* good = gst_buffer_new_allocate(nullptr, static_cast<gsize>(stride) * kHeight, nullptr);
  GstMapInfo map;
  gst_buffer_map(good, &map, GST_MAP_WRITE);
  for (int y = 0; y < kHeight; ++y)
    std::memcpy(map.data + y * stride, gray.ptr(y), kWidth);
  gst_buffer_unmap(good, &map);
  gsize good_offsets[GST_VIDEO_MAX_PLANES] = {0};
  gint good_strides[GST_VIDEO_MAX_PLANES] = {stride};
  gst_buffer_add_video_meta_full(good, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY8, kWidth,
                                 kHeight, 1, good_offsets, good_strides);
  gst_harness_set_src_caps_str(h, caps_string(GST_VIDEO_FORMAT_GRAY8, kWidth, kHeight).c_str());
  ASSERT_EQ(gst_harness_push(h, good), GST_FLOW_OK);
  GstBuffer* out = gst_harness_pull(h);
  expect_meta_equals(gst_buffer_get_keypoints_meta(out), library_sift(gray));
  gst_buffer_unref(out);
  teardown_filter(h);
}

constexpr gsize kFrameBytes = static_cast<gsize>(kWidth) * kHeight;

INSTANTIATE_TEST_SUITE_P(
    ImpossibleLayouts, VideoMetaCase,
    ::testing::Values(BadVideoMeta{"StridePastTheBuffer", GST_VIDEO_FORMAT_GRAY8, kWidth, kHeight,
                                   0, 100000, "plane 0"},
                      BadVideoMeta{"NegativeStride", GST_VIDEO_FORMAT_GRAY8, kWidth, kHeight, 0,
                                   -kWidth, "stride"},
                      BadVideoMeta{"StrideShorterThanARow", GST_VIDEO_FORMAT_GRAY8, kWidth, kHeight,
                                   0, 7, "stride"},
                      BadVideoMeta{"OffsetLeavesTooFewRows", GST_VIDEO_FORMAT_GRAY8, kWidth,
                                   kHeight, kFrameBytes / 2, kWidth, "plane 0"},
                      BadVideoMeta{"OffsetPastTheEnd", GST_VIDEO_FORMAT_GRAY8, kWidth, kHeight,
                                   kFrameBytes * 100, kWidth, "outside the buffer"},
                      BadVideoMeta{"MetaSmallerThanTheCaps", GST_VIDEO_FORMAT_GRAY8, kWidth / 2,
                                   kHeight, 0, kWidth, "video meta"},
                      BadVideoMeta{"Nv12LumaStridePastTheBuffer", GST_VIDEO_FORMAT_NV12, kWidth,
                                   kHeight, 0, 1 << 20, "plane 0"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(GpusiftFilterHostile, CapsOfZeroSizeAreNotAccepted) {
  GstHarness* h = cpu_filter();
  GstPad* sink = gst_element_get_static_pad(h->element, "sink");
  for (const auto& [width, height] : {std::pair{0, 48}, std::pair{64, 0}, std::pair{0, 0}}) {
    GstCaps* caps =
        gst_caps_from_string(caps_string(GST_VIDEO_FORMAT_GRAY8, width, height).c_str());
    EXPECT_FALSE(gst_pad_query_accept_caps(sink, caps)) << width << "x" << height;
    gst_caps_unref(caps);
  }
  gst_object_unref(sink);
  teardown_filter(h);
}

TEST(GpusiftFilterHostile, OneSidePastTheLimitIsRefusedAndTheLimitItselfWorks) {
  for (const auto& [width, height] : {std::pair{16385, 8}, std::pair{8, 16385}}) {
    GstHarness* h = cpu_filter();
    gst_harness_set_src_caps_str(h, caps_string(GST_VIDEO_FORMAT_GRAY8, width, height).c_str());
    GstBuffer* buffer = gst_test::make_video_buffer(GST_VIDEO_FORMAT_GRAY8, width, height, 0);
    EXPECT_EQ(gst_harness_push(h, buffer), GST_FLOW_NOT_NEGOTIATED);
    const std::string text = first_error(h);
    EXPECT_NE(text.find("larger than 16384x16384"), std::string::npos) << text;
    teardown_filter(h);
  }
  for (const auto& [width, height] : {std::pair{16384, 8}, std::pair{8, 16384}}) {
    GstHarness* h = cpu_filter();
    gst_harness_set_src_caps_str(h, caps_string(GST_VIDEO_FORMAT_GRAY8, width, height).c_str());
    GstBuffer* buffer = gst_test::make_video_buffer(GST_VIDEO_FORMAT_GRAY8, width, height, 90);
    ASSERT_EQ(gst_harness_push(h, buffer), GST_FLOW_OK) << first_error(h);
    GstBuffer* out = gst_harness_pull(h);
    const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(out);
    ASSERT_NE(meta, nullptr);
    EXPECT_EQ(meta->width, static_cast<guint>(width));
    EXPECT_EQ(meta->n_keypoints, 0u);  // a flat frame
    gst_buffer_unref(out);
    teardown_filter(h);
  }
}

// Sets one property from code through a GValue of its own type; GObject validates it.
template <typename T>
void set_property(GstElement* element, const char* name, GType type, T value) {
  GValue v = G_VALUE_INIT;
  g_value_init(&v, type);
  if constexpr (std::is_same_v<T, double>)
    g_value_set_double(&v, value);
  else if (type == G_TYPE_INT)
    g_value_set_int(&v, value);
  else
    g_value_set_enum(&v, value);
  g_object_set_property(G_OBJECT(element), name, &v);
  g_value_unset(&v);
}

TEST(GpusiftFilterHostile, OutOfRangePropertiesFromCodeWarnAndKeepTheOldValue) {
  const cv::Mat gray = load_gray("camera.png");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  GstHarness* h = cpu_filter();
  gst_harness_set_src_caps_str(h,
                               caps_string(GST_VIDEO_FORMAT_GRAY8, gray.cols, gray.rows).c_str());
  ASSERT_EQ(gst_harness_push(h, make_frame(gray, GST_VIDEO_FORMAT_GRAY8)), GST_FLOW_OK);
  gst_buffer_unref(gst_harness_pull(h));

  struct Bad {
    const char* name;
    std::function<void()> set;
  };
  GstElement* f = h->element;
  const std::vector<Bad> bad = {
      {"nfeatures", [&] { set_property(f, "nfeatures", G_TYPE_INT, -1); }},
      {"n-octave-layers", [&] { set_property(f, "n-octave-layers", G_TYPE_INT, 0); }},
      {"n-octave-layers", [&] { set_property(f, "n-octave-layers", G_TYPE_INT, 9); }},
      {"max-keypoints", [&] { set_property(f, "max-keypoints", G_TYPE_INT, 0); }},
      {"max-keypoints", [&] { set_property(f, "max-keypoints", G_TYPE_INT, (1 << 22) + 1); }},
      {"n-octaves", [&] { set_property(f, "n-octaves", G_TYPE_INT, 9); }},
      {"cuda-device-id", [&] { set_property(f, "cuda-device-id", G_TYPE_INT, -2); }},
      {"sigma", [&] { set_property(f, "sigma", G_TYPE_DOUBLE, nan); }},
      {"sigma", [&] { set_property(f, "sigma", G_TYPE_DOUBLE, -0.5); }},
      {"contrast-threshold", [&] { set_property(f, "contrast-threshold", G_TYPE_DOUBLE, inf); }},
      {"contrast-threshold", [&] { set_property(f, "contrast-threshold", G_TYPE_DOUBLE, -1.0); }},
      {"edge-threshold", [&] { set_property(f, "edge-threshold", G_TYPE_DOUBLE, 0.0); }},
      {"edge-threshold", [&] { set_property(f, "edge-threshold", G_TYPE_DOUBLE, -inf); }},
      {"hessian-threshold", [&] { set_property(f, "hessian-threshold", G_TYPE_DOUBLE, nan); }},
      {"hessian-threshold", [&] { set_property(f, "hessian-threshold", G_TYPE_DOUBLE, 2e6); }},
  };
  for (const Bad& b : bad) {
    const std::string before = property_as_string(f, b.name);
    const int refusals_before = LogCounter::range_refusals();
    b.set();
    EXPECT_EQ(LogCounter::range_refusals(), refusals_before + 1) << b.name << " was not refused";
    EXPECT_EQ(property_as_string(f, b.name), before) << b.name;
  }
  for (const char* name : {"method", "descriptor", "backend"}) {
    GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(f), name);
    const std::string before = property_as_string(f, name);
    const int refusals_before = LogCounter::range_refusals();
    set_property(f, name, spec->value_type, 42);
    EXPECT_EQ(LogCounter::range_refusals(), refusals_before + 1) << name << " took 42";
    EXPECT_EQ(property_as_string(f, name), before) << name;
  }

  // Nothing reached the extractor: the next frame is the defaults' result.
  ASSERT_EQ(gst_harness_push(h, make_frame(gray, GST_VIDEO_FORMAT_GRAY8)), GST_FLOW_OK);
  GstBuffer* out = gst_harness_pull(h);
  expect_meta_equals(gst_buffer_get_keypoints_meta(out), library_sift(gray));
  gst_buffer_unref(out);
  EXPECT_EQ(first_error(h), "");
  teardown_filter(h);
}

TEST(GpusiftFilterHostile, RenegotiationOnEveryFrameGivesEachFramesOwnKeypoints) {
  const cv::Mat bgr = load_bgr("astronaut.png");
  struct Step {
    GstVideoFormat format;
    int width;
    int height;
  };
  const std::vector<Step> steps = {
      {GST_VIDEO_FORMAT_GRAY8, 160, 120}, {GST_VIDEO_FORMAT_I420, 97, 71},
      {GST_VIDEO_FORMAT_BGRx, 200, 150},  {GST_VIDEO_FORMAT_NV12, 160, 120},
      {GST_VIDEO_FORMAT_RGB, 33, 257},    {GST_VIDEO_FORMAT_Y444, 1, 1},
  };
  GstHarness* h = cpu_filter();
  for (int frame = 0; frame < 24; ++frame) {
    const Step& step = steps[frame % steps.size()];
    SCOPED_TRACE("frame " + std::to_string(frame));
    cv::Mat image;
    cv::resize(bgr, image, cv::Size(step.width, step.height), 0, 0, cv::INTER_AREA);
    gst_harness_set_src_caps_str(h, caps_string(step.format, step.width, step.height).c_str());
    ASSERT_EQ(gst_harness_push(h, make_frame(image, step.format)), GST_FLOW_OK) << first_error(h);
    GstBuffer* out = gst_harness_pull(h);
    const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(out);
    ASSERT_NE(meta, nullptr);
    EXPECT_EQ(meta->width, static_cast<guint>(step.width));
    EXPECT_EQ(meta->height, static_cast<guint>(step.height));
    expect_meta_equals(meta, library_sift(gray_seen_by_element(image)));
    gst_buffer_unref(out);
  }
  EXPECT_EQ(first_error(h), "");
  teardown_filter(h);
}

TEST(GpusiftFilterHostile, EosBeforeAnyBufferEndsCleanly) {
  GstHarness* h = cpu_filter();
  EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_eos()));
  bool saw_eos = false;
  while (GstEvent* event = gst_harness_try_pull_event(h)) {
    saw_eos |= GST_EVENT_TYPE(event) == GST_EVENT_EOS;
    gst_event_unref(event);
  }
  EXPECT_TRUE(saw_eos);
  EXPECT_EQ(first_error(h), "");
  teardown_filter(h);

  GstElement* pipeline = appsrc_pipeline(64, 48);
  GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  gst_object_unref(src);
  GstMessage* end = play_to_end(pipeline, 30 * GST_SECOND);
  ASSERT_NE(end, nullptr) << "no EOS: the pipeline hangs";
  EXPECT_EQ(GST_MESSAGE_TYPE(end), GST_MESSAGE_EOS);
  gst_message_unref(end);
  stop_and_unref(pipeline);
}

TEST(GpusiftFilterHostile, FlushBetweenFramesKeepsResultsExact) {
  const cv::Mat gray = load_gray("coffee.png");
  const cv::Mat small = resized(gray, 150, 100);
  const Features expected = library_sift(small);
  GstHarness* h = cpu_filter();
  gst_harness_set_src_caps_str(h,
                               caps_string(GST_VIDEO_FORMAT_NV12, small.cols, small.rows).c_str());
  for (int round = 0; round < 5; ++round) {
    ASSERT_EQ(gst_harness_push(h, make_frame(small, GST_VIDEO_FORMAT_NV12)), GST_FLOW_OK);
    GstBuffer* out = gst_harness_pull(h);
    expect_meta_equals(gst_buffer_get_keypoints_meta(out), expected);
    gst_buffer_unref(out);
    EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_flush_start()));
    EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_flush_stop(TRUE)));
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_segment(&segment)));
  }
  EXPECT_EQ(first_error(h), "");
  teardown_filter(h);
}

// A test source that never ends, through the filter, with buffers counted at the sink.
struct LoadedPipeline {
  GstElement* pipeline = nullptr;
  std::atomic<int> frames{0};
  std::atomic<int> frames_without_meta{0};

  explicit LoadedPipeline(const char* source) {
    const std::string description = std::string(source) +
                                    " ! gpusiftfilter name=f backend=cpu ! "
                                    "fakesink name=sink sync=false signal-handoffs=true";
    pipeline = gst_parse_launch(description.c_str(), nullptr);
    GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    g_signal_connect(sink, "handoff", G_CALLBACK(&LoadedPipeline::on_handoff), this);
    gst_object_unref(sink);
  }
  ~LoadedPipeline() { stop_and_unref(pipeline); }

  static void on_handoff(GstElement*, GstBuffer* buffer, GstPad*, gpointer self) {
    auto* p = static_cast<LoadedPipeline*>(self);
    ++p->frames;
    if (!gst_buffer_get_keypoints_meta(buffer))
      ++p->frames_without_meta;
  }
  // Waits up to 30 s for `count` more frames at the sink.
  bool wait_for_frames(int count) const {
    const int target = frames.load() + count;
    for (int i = 0; i < 3000 && frames.load() < target; ++i)
      g_usleep(10000);
    return frames.load() >= target;
  }
  // Errors and warnings posted so far, as text.
  std::string problems() const {
    GstBus* bus = gst_element_get_bus(pipeline);
    std::string text;
    while (GstMessage* m = gst_bus_pop_filtered(
               bus, static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))) {
      GError* error = nullptr;
      if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR)
        gst_message_parse_error(m, &error, nullptr);
      else
        gst_message_parse_warning(m, &error, nullptr);
      text += std::string(error->message) + "; ";
      g_clear_error(&error);
      gst_message_unref(m);
    }
    gst_object_unref(bus);
    return text;
  }
};

TEST(GpusiftFilterHostile, FlushingSeeksWhileStreamingLoseNoMetaAndLeakNothing) {
  const int filters_before = live_objects_named("GstGpusiftFilter");
  ASSERT_GE(filters_before, 0) << "the leaks tracer is not active";
  {
    LoadedPipeline p("videotestsrc pattern=ball ! video/x-raw,format=I420,width=128,height=96");
    ASSERT_NE(gst_element_set_state(p.pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    ASSERT_TRUE(p.wait_for_frames(2));
    for (int seek = 0; seek < 20; ++seek) {
      const GstSeekFlags flags = static_cast<GstSeekFlags>(
          GST_SEEK_FLAG_FLUSH | (seek % 2 ? GST_SEEK_FLAG_KEY_UNIT : GST_SEEK_FLAG_ACCURATE));
      ASSERT_TRUE(
          gst_element_seek_simple(p.pipeline, GST_FORMAT_TIME, flags, (seek % 5) * GST_SECOND / 3))
          << "seek " << seek;
      ASSERT_TRUE(p.wait_for_frames(1)) << "no frame after seek " << seek;
    }
    EXPECT_EQ(p.frames_without_meta.load(), 0);
    EXPECT_EQ(p.problems(), "");
  }
  EXPECT_EQ(live_objects_named("GstGpusiftFilter"), filters_before);
}

TEST(GpusiftFilterHostile, StateCyclesUnderLoadNeitherHangNorLeak) {
  const int filters_before = live_objects_named("GstGpusiftFilter");
  const int buffers_before = live_objects_named("GstBuffer");
  ASSERT_GE(filters_before, 0) << "the leaks tracer is not active";
  {
    LoadedPipeline p(
        "videotestsrc pattern=snow ! video/x-raw,format=GRAY8,width=96,height=64 ! queue "
        "max-size-buffers=2");
    const GstState cycle[] = {GST_STATE_PLAYING, GST_STATE_PAUSED,  GST_STATE_PLAYING,
                              GST_STATE_READY,   GST_STATE_PLAYING, GST_STATE_NULL};
    GstElement* filter = gst_bin_get_by_name(GST_BIN(p.pipeline), "f");
    for (int round = 0; round < 8; ++round) {
      for (GstState state : cycle) {
        const GstStateChangeReturn change = gst_element_set_state(p.pipeline, state);
        ASSERT_NE(change, GST_STATE_CHANGE_FAILURE) << "round " << round;
        GstState reached = GST_STATE_VOID_PENDING;
        ASSERT_EQ(gst_element_get_state(p.pipeline, &reached, nullptr, 20 * GST_SECOND),
                  GST_STATE_CHANGE_SUCCESS)
            << "round " << round << ": stuck on the way to " << gst_element_state_get_name(state);
        // Settings change from this thread while the streaming thread runs.
        g_object_set(filter, "nfeatures", round % 3 == 0 ? 0 : 10 * round, nullptr);
        if (state == GST_STATE_PLAYING) {
          ASSERT_TRUE(p.wait_for_frames(2)) << "round " << round;
        }
      }
    }
    gst_object_unref(filter);
    EXPECT_EQ(p.frames_without_meta.load(), 0);
    EXPECT_EQ(p.problems(), "");
  }
  EXPECT_EQ(live_objects_named("GstGpusiftFilter"), filters_before);
  EXPECT_EQ(live_objects_named("GstBuffer"), buffers_before);
}

}  // namespace
}  // namespace gpusift::testing
