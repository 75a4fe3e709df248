// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusiftfilter with two frames in flight on CUDA SIFT: each frame leaves one frame later with the
// meta that one frame in flight gives, bit for bit; the held frame leaves before EOS, new caps
// and new settings, a flush drops it, the latency grows by one frame, auto takes two frames only
// after a source that is not live, and bad frames and GPU failures end the stream as with one
// frame in flight, the frames before them delivered and nothing leaked.
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
#include "gst_test_support.h"

namespace gpusift::testing {
namespace {

using gst_test::live_objects_named;

constexpr int kWidth = 320;
constexpr int kHeight = 240;
const std::string kCaps = caps_string(GST_VIDEO_FORMAT_GRAY8, kWidth, kHeight);
const GstClockTime kFrame = gst_util_uint64_scale_int(GST_SECOND, 1, 30);

GstHarness* cuda_filter(int frames_in_flight, const std::string& more = "",
                        const std::string& caps = kCaps) {
  return filter_harness(
      "backend=cuda max-frames-in-flight=" + std::to_string(frames_in_flight) + " " + more, caps);
}

// Each frame's meta with one frame in flight: the reference.
std::vector<MetaBytes> one_in_flight(const std::vector<cv::Mat>& frames,
                                     const std::string& more = "") {
  std::vector<MetaBytes> metas;
  for (const cv::Mat& frame : frames) {
    GstHarness* h =
        cuda_filter(1, more, caps_string(GST_VIDEO_FORMAT_GRAY8, frame.cols, frame.rows));
    if (gst_harness_push(h, gray_buffer(frame, 0)) == GST_FLOW_OK) {
      GstBuffer* out = gst_harness_pull(h);
      metas.push_back(meta_bytes(out));
      gst_buffer_unref(out);
    }
    teardown_filter(h);
  }
  return metas;
}

// Pushes EOS and expects `last` to leave before it.
void expect_eos_lets_go(GstHarness* h, const MetaBytes& last, GstClockTime pts) {
  EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_eos()));
  GstBuffer* out = gst_harness_try_pull(h);
  ASSERT_NE(out, nullptr) << "EOS lets the held frame go";
  EXPECT_EQ(GST_BUFFER_PTS(out), pts);
  EXPECT_TRUE(meta_bytes(out) == last);
  gst_buffer_unref(out);
  bool eos = false;
  while (GstEvent* event = gst_harness_try_pull_event(h)) {
    eos |= GST_EVENT_TYPE(event) == GST_EVENT_EOS;
    gst_event_unref(event);
  }
  EXPECT_TRUE(eos) << "EOS follows the held frame";
}

TEST(CudaFilterInFlight, EachFrameLeavesOneFrameLaterWithTheMetaOfOneInFlight) {
  const std::vector<cv::Mat> frames = different_frames(8, kWidth, kHeight);
  ASSERT_EQ(frames.size(), 8u);
  const std::vector<MetaBytes> expected = one_in_flight(frames);
  ASSERT_EQ(expected.size(), frames.size());
  GstHarness* h = cuda_filter(2);
  for (size_t i = 0; i < frames.size(); ++i) {
    ASSERT_EQ(gst_harness_push(h, gray_buffer(frames[i], static_cast<int>(i))), GST_FLOW_OK);
    GstBuffer* out = gst_harness_try_pull(h);
    if (i == 0) {
      EXPECT_EQ(out, nullptr) << "the first frame is held";
      continue;
    }
    ASSERT_NE(out, nullptr) << "frame " << i;
    EXPECT_EQ(GST_BUFFER_PTS(out), frame_pts(static_cast<int>(i) - 1));
    ASSERT_TRUE(expected[i - 1].present);
    EXPECT_GT(expected[i - 1].keypoints.size(), 50 * sizeof(GstKeypoint));
    EXPECT_TRUE(meta_bytes(out) == expected[i - 1]) << "frame " << i - 1;
    gst_buffer_unref(out);
  }
  expect_eos_lets_go(h, expected.back(), frame_pts(static_cast<int>(frames.size()) - 1));
  EXPECT_EQ(first_error(h), "");
  teardown_filter(h);
}

TEST(CudaFilterInFlight, ANewResolutionLetsTheHeldFrameLeaveFirst) {
  const std::vector<cv::Mat> large = different_frames(2, kWidth, kHeight);
  const std::vector<cv::Mat> small = different_frames(2, 200, 150);
  ASSERT_EQ(large.size() + small.size(), 4u);
  const std::vector<MetaBytes> large_expected = one_in_flight(large);
  const std::vector<MetaBytes> small_expected = one_in_flight(small);
  GstHarness* h = cuda_filter(2);
  ASSERT_EQ(gst_harness_push(h, gray_buffer(large[0], 0)), GST_FLOW_OK);
  ASSERT_EQ(gst_harness_push(h, gray_buffer(large[1], 1)), GST_FLOW_OK);
  GstBuffer* out = gst_harness_pull(h);
  EXPECT_TRUE(meta_bytes(out) == large_expected[0]);
  gst_buffer_unref(out);
  gst_harness_set_src_caps_str(h, caps_string(GST_VIDEO_FORMAT_GRAY8, 200, 150).c_str());
  out = gst_harness_try_pull(h);
  ASSERT_NE(out, nullptr) << "new caps let the held frame go";
  EXPECT_EQ(meta_bytes(out).width, static_cast<guint>(kWidth));
  EXPECT_TRUE(meta_bytes(out) == large_expected[1]);
  gst_buffer_unref(out);
  ASSERT_EQ(gst_harness_push(h, gray_buffer(small[0], 2)), GST_FLOW_OK);
  EXPECT_EQ(gst_harness_try_pull(h), nullptr);
  ASSERT_EQ(gst_harness_push(h, gray_buffer(small[1], 3)), GST_FLOW_OK);
  out = gst_harness_pull(h);
  EXPECT_TRUE(meta_bytes(out) == small_expected[0]);
  gst_buffer_unref(out);
  expect_eos_lets_go(h, small_expected[1], frame_pts(3));
  EXPECT_EQ(first_error(h), "");
  teardown_filter(h);
}

TEST(CudaFilterInFlight, AFlushDropsTheHeldFrameAndLeaksNothing) {
  const std::vector<cv::Mat> frames = different_frames(3, kWidth, kHeight);
  ASSERT_EQ(frames.size(), 3u);
  const std::vector<MetaBytes> expected = one_in_flight(frames);
  const int buffers_before = live_objects_named("GstBuffer");
  ASSERT_GE(buffers_before, 0) << "the leaks tracer is not active";
  GstHarness* h = cuda_filter(2);
  ASSERT_EQ(gst_harness_push(h, gray_buffer(frames[0], 0)), GST_FLOW_OK);
  ASSERT_EQ(gst_harness_push(h, gray_buffer(frames[1], 1)), GST_FLOW_OK);
  gst_buffer_unref(gst_harness_pull(h));
  EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_flush_start()));
  EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_flush_stop(TRUE)));
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_segment(&segment)));
  EXPECT_EQ(gst_harness_try_pull(h), nullptr) << "frame 1 was dropped";
  ASSERT_EQ(gst_harness_push(h, gray_buffer(frames[2], 2)), GST_FLOW_OK);
  EXPECT_EQ(gst_harness_try_pull(h), nullptr) << "frame 2 is held";
  expect_eos_lets_go(h, expected[2], frame_pts(2));
  EXPECT_EQ(first_error(h), "");
  teardown_filter(h);
  // And a stop with a frame held.
  h = cuda_filter(2);
  EXPECT_EQ(gst_harness_push(h, gray_buffer(frames[0], 0)), GST_FLOW_OK);
  EXPECT_EQ(gst_harness_try_pull(h), nullptr);
  teardown_filter(h);
  EXPECT_EQ(live_objects_named("GstBuffer"), buffers_before);
}

TEST(CudaFilterInFlight, TheLatencyGrowsByOneFrame) {
  GstHarness* one = cuda_filter(1);
  GstHarness* two = cuda_filter(2);
  gst_harness_set_upstream_latency(one, 10 * GST_MSECOND);
  gst_harness_set_upstream_latency(two, 10 * GST_MSECOND);
  EXPECT_EQ(reported_latency(one), 10 * GST_MSECOND);
  EXPECT_EQ(reported_latency(two), 10 * GST_MSECOND + kFrame);
  teardown_filter(one);
  teardown_filter(two);
}

// appsrc (live or not) ! gpusiftfilter (auto) ! appsink: every frame arrives with the meta of one
// frame in flight; returns the latency reported after the stream.
GstClockTime run_after_source(bool live, const std::vector<cv::Mat>& frames,
                              const std::vector<MetaBytes>& expected) {
  const std::string description = std::string("appsrc name=src format=time is-live=") +
                                  (live ? "true" : "false") + " caps=" + kCaps +
                                  " ! gpusiftfilter backend=cuda ! appsink name=sink sync=false";
  GstElement* pipeline = gst_parse_launch(description.c_str(), nullptr);
  GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  for (size_t i = 0; i < frames.size(); ++i)
    gst_app_src_push_buffer(GST_APP_SRC(src), gray_buffer(frames[i], static_cast<int>(i)));
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  for (size_t i = 0; i < frames.size(); ++i) {
    GstSample* sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 30 * GST_SECOND);
    EXPECT_NE(sample, nullptr) << "frame " << i;
    if (!sample)
      break;
    EXPECT_TRUE(meta_bytes(gst_sample_get_buffer(sample)) == expected[i]) << "frame " << i;
    gst_sample_unref(sample);
  }
  EXPECT_TRUE(gst_app_sink_is_eos(GST_APP_SINK(sink)) ||
              gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 5 * GST_SECOND) == nullptr);
  GstPad* sink_pad = gst_element_get_static_pad(sink, "sink");
  GstQuery* query = gst_query_new_latency();
  GstClockTime min = GST_CLOCK_TIME_NONE;
  if (gst_pad_peer_query(sink_pad, query))
    gst_query_parse_latency(query, nullptr, &min, nullptr);
  gst_query_unref(query);
  gst_object_unref(sink_pad);
  gst_object_unref(src);
  gst_object_unref(sink);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return min;
}

TEST(CudaFilterInFlight, AutoIsTwoFramesAfterASourceThatIsNotLiveAndOneAfterALiveOne) {
  const std::vector<cv::Mat> frames = different_frames(5, kWidth, kHeight);
  ASSERT_EQ(frames.size(), 5u);
  const std::vector<MetaBytes> expected = one_in_flight(frames);
  EXPECT_EQ(run_after_source(false, frames, expected), kFrame);
  // appsrc reports no latency of its own when live: all of it would be the filter's.
  EXPECT_EQ(run_after_source(true, frames, expected), 0u);
}

TEST(CudaFilterInFlight, SurfTakesOneFrameWhateverIsAskedFor) {
  const std::vector<cv::Mat> frames = different_frames(3, kWidth, kHeight);
  ASSERT_EQ(frames.size(), 3u);
  const std::vector<MetaBytes> expected = one_in_flight(frames, "method=surf");
  GstHarness* h = cuda_filter(2, "method=surf");
  gst_harness_set_upstream_latency(h, 10 * GST_MSECOND);
  EXPECT_EQ(reported_latency(h), 10 * GST_MSECOND);
  for (size_t i = 0; i < frames.size(); ++i) {
    ASSERT_EQ(gst_harness_push(h, gray_buffer(frames[i], static_cast<int>(i))), GST_FLOW_OK);
    GstBuffer* out = gst_harness_try_pull(h);
    ASSERT_NE(out, nullptr) << "frame " << i << " was held";
    EXPECT_TRUE(meta_bytes(out) == expected[i]) << "frame " << i;
    gst_buffer_unref(out);
  }
  teardown_filter(h);
}

TEST(CudaFilterInFlight, NewSettingsMidStreamLetTheHeldFrameLeaveWithTheOldOnes) {
  const std::vector<cv::Mat> frames = different_frames(3, kWidth, kHeight);
  ASSERT_EQ(frames.size(), 3u);
  const std::vector<MetaBytes> float_expected = one_in_flight(frames);
  const std::vector<MetaBytes> uint8_expected = one_in_flight(frames, "descriptor=uint8");
  GstHarness* h = cuda_filter(2);
  ASSERT_EQ(gst_harness_push(h, gray_buffer(frames[0], 0)), GST_FLOW_OK);
  ASSERT_EQ(gst_harness_push(h, gray_buffer(frames[1], 1)), GST_FLOW_OK);
  GstBuffer* out = gst_harness_pull(h);
  EXPECT_TRUE(meta_bytes(out) == float_expected[0]);
  gst_buffer_unref(out);
  gst_util_set_object_arg(G_OBJECT(h->element), "descriptor", "uint8");
  ASSERT_EQ(gst_harness_push(h, gray_buffer(frames[2], 2)), GST_FLOW_OK);
  out = gst_harness_try_pull(h);
  ASSERT_NE(out, nullptr) << "the held frame leaves before the new extractor's first";
  EXPECT_TRUE(meta_bytes(out) == float_expected[1]);
  gst_buffer_unref(out);
  EXPECT_EQ(gst_harness_try_pull(h), nullptr) << "frame 2 is held";
  expect_eos_lets_go(h, uint8_expected[2], frame_pts(2));
  EXPECT_EQ(first_error(h), "");
  teardown_filter(h);
}

TEST(CudaFilterInFlight, ATinyFrameAfterAHeldOneGivesAnEmptyMeta) {
  const std::vector<cv::Mat> frames = different_frames(1, kWidth, kHeight);
  ASSERT_EQ(frames.size(), 1u);
  const std::vector<MetaBytes> expected = one_in_flight(frames);
  const cv::Mat tiny(1, 1, CV_8UC1, cv::Scalar(77));
  const std::vector<MetaBytes> tiny_expected = one_in_flight({tiny});
  ASSERT_EQ(tiny_expected.size(), 1u);
  EXPECT_TRUE(tiny_expected[0].present);
  EXPECT_TRUE(tiny_expected[0].keypoints.empty());
  GstHarness* h = cuda_filter(2);
  ASSERT_EQ(gst_harness_push(h, gray_buffer(frames[0], 0)), GST_FLOW_OK);
  gst_harness_set_src_caps_str(h, caps_string(GST_VIDEO_FORMAT_GRAY8, 1, 1).c_str());
  GstBuffer* out = gst_harness_try_pull(h);
  ASSERT_NE(out, nullptr);
  EXPECT_TRUE(meta_bytes(out) == expected[0]);
  gst_buffer_unref(out);
  ASSERT_EQ(gst_harness_push(h, gray_buffer(tiny, 1)), GST_FLOW_OK);
  expect_eos_lets_go(h, tiny_expected[0], frame_pts(1));
  EXPECT_EQ(first_error(h), "");
  teardown_filter(h);
}

TEST(CudaFilterInFlight, AShortBufferIsTheSameErrorAfterTheHeldFrameLeaves) {
  const std::vector<cv::Mat> frames = different_frames(1, kWidth, kHeight);
  ASSERT_EQ(frames.size(), 1u);
  const std::vector<MetaBytes> expected = one_in_flight(frames);
  const int buffers_before = live_objects_named("GstBuffer");
  GstHarness* h = cuda_filter(2);
  ASSERT_EQ(gst_harness_push(h, gray_buffer(frames[0], 0)), GST_FLOW_OK);
  EXPECT_EQ(gst_harness_push(h, gst_buffer_new_allocate(nullptr, 1000, nullptr)), GST_FLOW_ERROR);
  GstBuffer* out = gst_harness_try_pull(h);
  ASSERT_NE(out, nullptr) << "the frame before the bad one still leaves";
  EXPECT_TRUE(meta_bytes(out) == expected[0]);
  gst_buffer_unref(out);
  const std::string error = first_error(h);
  EXPECT_NE(error.find("1000 bytes"), std::string::npos) << error;
  EXPECT_NE(error.find(std::to_string(kWidth * kHeight)), std::string::npos) << error;
  teardown_filter(h);
  EXPECT_EQ(live_objects_named("GstBuffer"), buffers_before);
}

// GPUSIFT_TEST_FAIL_LAUNCH=N: the extractor's Nth frame fails on the GPU. Wherever the failure
// comes out (that frame's submit or its collect), the frames before it leave with their metas.
TEST(CudaFilterInFlight, AFailingFrameEndsTheStreamAfterTheFramesBeforeIt) {
  constexpr int kFailing = 4;
  const std::vector<cv::Mat> frames = different_frames(kFailing + 2, kWidth, kHeight);
  ASSERT_EQ(frames.size(), static_cast<size_t>(kFailing + 2));
  const std::vector<MetaBytes> expected = one_in_flight(frames);
  const int buffers_before = live_objects_named("GstBuffer");
  g_setenv("GPUSIFT_TEST_FAIL_LAUNCH", std::to_string(kFailing).c_str(), TRUE);
  GstHarness* h = cuda_filter(2);
  g_unsetenv("GPUSIFT_TEST_FAIL_LAUNCH");  // read when an extractor is built
  GstFlowReturn ret = GST_FLOW_OK;
  for (size_t i = 0; i < frames.size() && ret == GST_FLOW_OK; ++i)
    ret = gst_harness_push(h, gray_buffer(frames[i], static_cast<int>(i)));
  EXPECT_EQ(ret, GST_FLOW_ERROR);
  for (int i = 0; i < kFailing - 1; ++i) {
    GstBuffer* out = gst_harness_try_pull(h);
    ASSERT_NE(out, nullptr) << "frame " << i << " before the failing one";
    EXPECT_EQ(GST_BUFFER_PTS(out), frame_pts(static_cast<int>(i)));
    EXPECT_TRUE(meta_bytes(out) == expected[i]) << "frame " << i;
    gst_buffer_unref(out);
  }
  EXPECT_EQ(gst_harness_try_pull(h), nullptr);
  const std::string error = first_error(h);
  EXPECT_NE(error.find("GPUSIFT_TEST_FAIL_LAUNCH"), std::string::npos) << error;
  teardown_filter(h);
  EXPECT_EQ(live_objects_named("GstBuffer"), buffers_before);
}

}  // namespace
}  // namespace gpusift::testing
