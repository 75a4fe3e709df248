// SPDX-License-Identifier: LGPL-2.1-or-later
// keypointtracker with max-frames-in-flight=2 (CPU backend, GstHarness): the same tracks as one
// frame in flight, each frame one frame later; the held frame leaves before EOS and before
// buffers and events that follow it, a flush drops it, and the latency grows by one frame.
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointstracksmeta.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "tracker_test_support.h"

namespace gpusift::testing {
namespace {

const cv::Size kFrame(640, 480);
const std::string kCaps = "video/x-raw,format=GRAY8,width=640,height=480,framerate=30/1";

GstHarness* cpu_tracker(int frames_in_flight) {
  GstHarness* h = element_harness(
      "keypointtracker", "backend=cpu max-frames-in-flight=" + std::to_string(frames_in_flight));
  gst_harness_set_src_caps_str(h, kCaps.c_str());
  return h;
}

GstBuffer* frame_buffer(const SyntheticScene& scene, int index) {
  const double a = index * 0.02, cx = kFrame.width / 2.0, cy = kFrame.height / 2.0;
  const cv::Matx33d motion(std::cos(a), -std::sin(a),
                           cx + 3 * index - (std::cos(a) * cx - std::sin(a) * cy), std::sin(a),
                           std::cos(a), cy - (std::sin(a) * cx + std::cos(a) * cy), 0, 0, 1);
  GstBuffer* buffer =
      buffer_with_keypoints(synthetic_frame(scene, motion, 0.2f, 100 + index), kFrame);
  GST_BUFFER_PTS(buffer) = index * GST_SECOND / 30;
  return buffer;
}

bool same_tracks(GstBuffer* a, GstBuffer* b) {
  const GstKeypointsTracksMeta* x = gst_buffer_get_keypoints_tracks_meta(a);
  const GstKeypointsTracksMeta* y = gst_buffer_get_keypoints_tracks_meta(b);
  return x && y && x->n_tracks == y->n_tracks &&
         std::memcmp(x->tracks, y->tracks, x->n_tracks * sizeof(GstKeypointTrack)) == 0 &&
         std::memcmp(&x->motion, &y->motion, sizeof(x->motion)) == 0;
}

TEST(KeypointTrackerInFlight, DefaultIsAutoWhichOverlapsOnlyANonLiveGpuStream) {
  GstElement* tracker = gst_element_factory_make("keypointtracker", nullptr);
  ASSERT_NE(tracker, nullptr);
  gint frames = -1;
  g_object_get(tracker, "max-frames-in-flight", &frames, nullptr);
  EXPECT_EQ(frames, 0);
  gst_object_unref(tracker);
  // On the CPU backend auto is one frame: each frame comes out right after its push.
  GstHarness* h = element_harness("keypointtracker", "backend=cpu");
  gst_harness_set_src_caps_str(h, kCaps.c_str());
  const SyntheticScene scene = random_scene(30, kFrame, 11);
  GstBuffer* out = push_and_pull(h, frame_buffer(scene, 0));
  EXPECT_NE(out, nullptr);
  if (out)
    gst_buffer_unref(out);
  teardown_harness(h);
}

TEST(KeypointTrackerInFlight, SameTracksOneFrameLaterAndTheLastAtEos) {
  const SyntheticScene scene = random_scene(120, kFrame, 7);
  GstHarness* one = cpu_tracker(1);
  GstHarness* two = cpu_tracker(2);
  constexpr int kFrames = 12;
  std::vector<GstBuffer*> expected;
  for (int i = 0; i < kFrames; ++i)
    expected.push_back(push_and_pull(one, frame_buffer(scene, i)));
  for (int i = 0; i < kFrames; ++i) {
    ASSERT_EQ(gst_harness_push(two, frame_buffer(scene, i)), GST_FLOW_OK);
    GstBuffer* out = gst_harness_try_pull(two);
    if (i == 0) {
      EXPECT_EQ(out, nullptr) << "the first frame is held";
      continue;
    }
    ASSERT_NE(out, nullptr) << i;
    EXPECT_EQ(GST_BUFFER_PTS(out), GST_BUFFER_PTS(expected[i - 1])) << i;
    EXPECT_TRUE(same_tracks(out, expected[i - 1])) << i;
    gst_buffer_unref(out);
  }
  EXPECT_TRUE(gst_harness_push_event(two, gst_event_new_eos()));
  GstBuffer* last = gst_harness_try_pull(two);
  ASSERT_NE(last, nullptr) << "EOS lets the held frame go";
  EXPECT_TRUE(same_tracks(last, expected.back()));
  gst_buffer_unref(last);
  GstEvent* eos = gst_harness_try_pull_event(two);
  while (eos && GST_EVENT_TYPE(eos) != GST_EVENT_EOS) {
    gst_event_unref(eos);
    eos = gst_harness_try_pull_event(two);
  }
  ASSERT_NE(eos, nullptr) << "EOS follows the held frame";
  gst_event_unref(eos);
  for (GstBuffer* b : expected)
    gst_buffer_unref(b);
  teardown_harness(one);
  teardown_harness(two);
}

TEST(KeypointTrackerInFlight, ABufferWithoutKeypointsKeepsItsPlace) {
  const SyntheticScene scene = random_scene(80, kFrame, 8);
  GstHarness* h = cpu_tracker(2);
  ASSERT_EQ(gst_harness_push(h, frame_buffer(scene, 0)), GST_FLOW_OK);
  GstBuffer* plain = gst_buffer_new_allocate(nullptr, kFrame.area(), nullptr);
  GST_BUFFER_PTS(plain) = GST_SECOND;
  ASSERT_EQ(gst_harness_push(h, plain), GST_FLOW_OK);
  GstBuffer* first = gst_harness_try_pull(h);
  GstBuffer* second = gst_harness_try_pull(h);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(GST_BUFFER_PTS(first), 0u);
  EXPECT_NE(gst_buffer_get_keypoints_tracks_meta(first), nullptr);
  EXPECT_EQ(GST_BUFFER_PTS(second), GST_SECOND);
  EXPECT_EQ(gst_buffer_get_keypoints_tracks_meta(second), nullptr);
  gst_buffer_unref(first);
  gst_buffer_unref(second);
  teardown_harness(h);
}

TEST(KeypointTrackerInFlight, AFlushDropsTheHeldFrameAndTrackingStartsOver) {
  const SyntheticScene scene = random_scene(80, kFrame, 9);
  GstHarness* h = cpu_tracker(2);
  ASSERT_EQ(gst_harness_push(h, frame_buffer(scene, 0)), GST_FLOW_OK);
  ASSERT_EQ(gst_harness_push(h, frame_buffer(scene, 1)), GST_FLOW_OK);
  GstBuffer* out = gst_harness_pull(h);
  EXPECT_EQ(GST_BUFFER_PTS(out), 0u);
  gst_buffer_unref(out);
  EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_flush_start()));
  EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_flush_stop(TRUE)));
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_segment(&segment)));
  ASSERT_EQ(gst_harness_push(h, frame_buffer(scene, 2)), GST_FLOW_OK);
  EXPECT_EQ(gst_harness_try_pull(h), nullptr) << "frame 1 was flushed, frame 2 is held";
  EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_eos()));
  out = gst_harness_try_pull(h);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(GST_BUFFER_PTS(out), 2 * GST_SECOND / 30);
  EXPECT_EQ(gst_buffer_get_keypoints_tracks_meta(out)->motion.frame_number, 0u);
  gst_buffer_unref(out);
  teardown_harness(h);
}

GstClockTime reported_latency(GstHarness* h) {
  GstQuery* query = gst_query_new_latency();
  EXPECT_TRUE(gst_pad_peer_query(h->sinkpad, query));
  GstClockTime min = 0;
  gst_query_parse_latency(query, nullptr, &min, nullptr);
  gst_query_unref(query);
  return min;
}

TEST(KeypointTrackerInFlight, LatencyGrowsByOneFrame) {
  GstHarness* one = cpu_tracker(1);
  GstHarness* two = cpu_tracker(2);
  gst_harness_set_upstream_latency(one, 10 * GST_MSECOND);
  gst_harness_set_upstream_latency(two, 10 * GST_MSECOND);
  EXPECT_EQ(reported_latency(one), 10 * GST_MSECOND);
  EXPECT_EQ(reported_latency(two), 10 * GST_MSECOND + gst_util_uint64_scale_int(GST_SECOND, 1, 30));
  teardown_harness(one);
  teardown_harness(two);
}

TEST(KeypointTrackerInFlight, StopWithAFrameHeldLeaksNothing) {
  const SyntheticScene scene = random_scene(40, kFrame, 10);
  const int buffers_before = live_objects_named("GstBuffer");
  for (int round = 0; round < 5; ++round) {
    GstHarness* h = cpu_tracker(2);
    ASSERT_EQ(gst_harness_push(h, frame_buffer(scene, round)), GST_FLOW_OK);
    teardown_harness(h);
  }
  EXPECT_EQ(live_objects_named("GstBuffer"), buffers_before);
}

}  // namespace
}  // namespace gpusift::testing
