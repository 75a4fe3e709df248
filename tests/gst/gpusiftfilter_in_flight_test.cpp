// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusiftfilter's max-frames-in-flight on the CPU backend, whose extractor takes one frame at a
// time: the property itself, and every setting (auto, 1, 2) behaving as one frame in flight, with
// no frame held and no latency added. The GPU suite covers two frames in flight.
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "filter_in_flight_support.h"
#include "frame_factory.h"
#include "gpusift/cpu_sift.h"
#include "gst_test_support.h"

namespace gpusift::testing {
namespace {

using gst_test::live_objects_named;
using gst_test::LogCounter;

constexpr int kWidth = 320;
constexpr int kHeight = 240;
const std::string kCaps = caps_string(GST_VIDEO_FORMAT_GRAY8, kWidth, kHeight);

MetaBytes library_meta(const cv::Mat& gray) {
  CpuSiftExtractor library(video_sift_params());  // the element's defaults
  const Features f = library.extract(gray.data, gray.step, gray.cols, gray.rows);
  MetaBytes bytes;
  bytes.present = true;
  bytes.width = static_cast<guint>(gray.cols);
  bytes.height = static_cast<guint>(gray.rows);
  bytes.method = GST_KEYPOINTS_METHOD_SIFT;
  bytes.descriptor_type = GST_KEYPOINTS_DESCRIPTOR_FLOAT32;
  bytes.descriptor_size = static_cast<guint>(f.descriptor_size);
  const auto* k = reinterpret_cast<const unsigned char*>(f.keypoints.data());
  bytes.keypoints.assign(k, k + f.keypoints.size() * sizeof(Keypoint));
  const auto* d = reinterpret_cast<const unsigned char*>(f.float_descriptors.data());
  bytes.descriptors.assign(d, d + f.float_descriptors.size() * sizeof(float));
  return bytes;
}

TEST(GpusiftFilterInFlight, PropertyIsAutoByDefaultAndTakesZeroToTwo) {
  GstElement* filter = gst_element_factory_make("gpusiftfilter", nullptr);
  ASSERT_NE(filter, nullptr);
  GParamSpec* spec =
      g_object_class_find_property(G_OBJECT_GET_CLASS(filter), "max-frames-in-flight");
  ASSERT_NE(spec, nullptr);
  EXPECT_TRUE(spec->flags & GST_PARAM_MUTABLE_READY);
  EXPECT_NE(std::string(g_param_spec_get_blurb(spec)).find("auto"), std::string::npos);
  gint frames = -1;
  g_object_get(filter, "max-frames-in-flight", &frames, nullptr);
  EXPECT_EQ(frames, 0);
  for (gint value : {1, 2, 0}) {
    g_object_set(filter, "max-frames-in-flight", value, nullptr);
    g_object_get(filter, "max-frames-in-flight", &frames, nullptr);
    EXPECT_EQ(frames, value);
  }
  const int refusals_before = LogCounter::range_refusals();
  g_object_set(filter, "max-frames-in-flight", 3, nullptr);
  EXPECT_EQ(LogCounter::range_refusals(), refusals_before + 1) << "3 was not refused";
  g_object_get(filter, "max-frames-in-flight", &frames, nullptr);
  EXPECT_EQ(frames, 0);
  gst_object_unref(filter);
}

class CpuSetting : public ::testing::TestWithParam<int> {};

TEST_P(CpuSetting, EachFrameLeavesAtOnceWithItsOwnMetaAndNoAddedLatency) {
  const std::vector<cv::Mat> frames = different_frames(6, kWidth, kHeight);
  ASSERT_EQ(frames.size(), 6u);
  GstHarness* h =
      filter_harness("backend=cpu max-frames-in-flight=" + std::to_string(GetParam()), kCaps);
  gst_harness_set_upstream_latency(h, 10 * GST_MSECOND);
  EXPECT_EQ(reported_latency(h), 10 * GST_MSECOND);
  for (size_t i = 0; i < frames.size(); ++i) {
    ASSERT_EQ(gst_harness_push(h, gray_buffer(frames[i], static_cast<int>(i))), GST_FLOW_OK);
    GstBuffer* out = gst_harness_try_pull(h);
    ASSERT_NE(out, nullptr) << "frame " << i << " was held";
    EXPECT_EQ(GST_BUFFER_PTS(out), frame_pts(static_cast<int>(i)));
    EXPECT_TRUE(meta_bytes(out) == library_meta(frames[i])) << "frame " << i;
    gst_buffer_unref(out);
  }
  EXPECT_EQ(reported_latency(h), 10 * GST_MSECOND);
  EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_eos()));
  EXPECT_EQ(gst_harness_try_pull(h), nullptr);
  EXPECT_EQ(first_error(h), "");
  teardown_filter(h);
}

INSTANTIATE_TEST_SUITE_P(AutoOneTwo, CpuSetting, ::testing::Values(0, 1, 2),
                         [](const auto& info) { return "max" + std::to_string(info.param); });

// Auto after a source that is not live would take two frames on CUDA SIFT; the CPU backend takes
// one, so every frame still arrives and the latency is upstream's.
TEST(GpusiftFilterInFlight, AutoAfterANonLiveSourceIsOneFrameOnTheCpu) {
  const std::vector<cv::Mat> frames = different_frames(4, kWidth, kHeight);
  ASSERT_EQ(frames.size(), 4u);
  const std::string description = "appsrc name=src format=time caps=" + kCaps +
                                  " ! gpusiftfilter backend=cpu ! appsink name=sink sync=false";
  GstElement* pipeline = gst_parse_launch(description.c_str(), nullptr);
  ASSERT_NE(pipeline, nullptr);
  GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  ASSERT_EQ(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_ASYNC);
  for (size_t i = 0; i < frames.size(); ++i)
    ASSERT_EQ(gst_app_src_push_buffer(GST_APP_SRC(src), gray_buffer(frames[i], i)), GST_FLOW_OK);
  for (size_t i = 0; i < frames.size(); ++i) {
    GstSample* sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 30 * GST_SECOND);
    ASSERT_NE(sample, nullptr) << "frame " << i;
    EXPECT_TRUE(meta_bytes(gst_sample_get_buffer(sample)) == library_meta(frames[i])) << i;
    gst_sample_unref(sample);
  }
  GstPad* sink_pad = gst_element_get_static_pad(sink, "sink");
  GstQuery* query = gst_query_new_latency();
  ASSERT_TRUE(gst_pad_peer_query(sink_pad, query));
  gboolean live = TRUE;
  GstClockTime min = GST_CLOCK_TIME_NONE;
  gst_query_parse_latency(query, &live, &min, nullptr);
  EXPECT_FALSE(live);
  EXPECT_EQ(min, 0u);
  gst_query_unref(query);
  gst_object_unref(sink_pad);
  gst_object_unref(src);
  gst_object_unref(sink);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

TEST(GpusiftFilterInFlight, FlushAndStopWithTwoAskedForLeakNoBuffer) {
  const std::vector<cv::Mat> frames = different_frames(3, kWidth, kHeight);
  ASSERT_EQ(frames.size(), 3u);
  const int buffers_before = live_objects_named("GstBuffer");
  ASSERT_GE(buffers_before, 0) << "the leaks tracer is not active";
  for (int round = 0; round < 3; ++round) {
    GstHarness* h = filter_harness("backend=cpu max-frames-in-flight=2", kCaps);
    ASSERT_EQ(gst_harness_push(h, gray_buffer(frames[0], 0)), GST_FLOW_OK);
    EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_flush_start()));
    EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_flush_stop(TRUE)));
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_segment(&segment)));
    ASSERT_EQ(gst_harness_push(h, gray_buffer(frames[round], 1)), GST_FLOW_OK);
    teardown_filter(h);
  }
  EXPECT_EQ(live_objects_named("GstBuffer"), buffers_before);
}

}  // namespace
}  // namespace gpusift::testing
