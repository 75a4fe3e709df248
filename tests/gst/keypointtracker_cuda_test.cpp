// SPDX-License-Identifier: LGPL-2.1-or-later
// keypointtracker on the GPU: the CUDA matcher gives the CPU matcher's tracks and motions on the
// main job's camera path, and the tracker shares gpusiftfilter's CUDA context.
#include <gst/check/gstharness.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/keypoints/gstkeypointstracksmeta.h>
#include <gtest/gtest.h>

#include <cstring>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "camera_motion.h"
#include "cuda_context_support.h"
#include "frame_factory.h"
#include "test_images.h"
#include "tracker_test_support.h"

namespace gpusift::testing {
namespace {

struct FrameCopy {
  std::vector<GstKeypoint> keypoints;
  std::vector<GstKeypointTrack> tracks;
  GstKeypointMotion motion;
  bool device_meta = false;  // gpusiftfilter attached its descriptors in device memory
  bool on_device = false;    // the tracker matched them there (its message says)
};

// The plugin-private meta of device descriptors, looked up by name (0 until registered).
GType device_meta_api() {
  return g_type_from_name("GstKeypointsDeviceMetaAPI");
}

std::vector<FrameCopy> run_camera(const std::string& description, int count, cv::Size size) {
  std::vector<FrameCopy> frames;
  const cv::Mat source = load_bgr("astronaut.png");
  if (source.empty())
    return frames;
  GstHarness* h = gst_harness_new_parse(description.c_str());
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(h->element, bus);
  gst_harness_set_src_caps_str(
      h, caps_string(GST_VIDEO_FORMAT_GRAY8, size.width, size.height).c_str());
  // Outputs may come a frame late (max-frames-in-flight=2): taken as they come, then at EOS.
  auto take_outputs = [&] {
    while (GstBuffer* out = gst_harness_try_pull(h)) {
      const GstKeypointsMeta* keypoints = gst_buffer_get_keypoints_meta(out);
      const GstKeypointsTracksMeta* tracks = gst_buffer_get_keypoints_tracks_meta(out);
      if (keypoints && tracks) {
        FrameCopy copy;
        copy.keypoints.assign(keypoints->keypoints, keypoints->keypoints + keypoints->n_keypoints);
        copy.tracks.assign(tracks->tracks, tracks->tracks + tracks->n_tracks);
        copy.motion = tracks->motion;
        copy.device_meta = device_meta_api() && gst_buffer_get_meta(out, device_meta_api());
        while (GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT)) {
          gboolean on_device = FALSE;
          if (gst_message_has_name(m, "keypointtracker") &&
              gst_structure_get_boolean(gst_message_get_structure(m), "descriptors-on-device",
                                        &on_device))
            copy.on_device = on_device;
          gst_message_unref(m);
        }
        frames.push_back(copy);
      }
      gst_buffer_unref(out);
    }
  };
  for (int i = 0; i < count; ++i) {
    cv::Mat gray;
    cv::cvtColor(
        demo::render_frame(source, demo::frame_homography(i, count, source.size(), size), size),
        gray, cv::COLOR_BGR2GRAY);
    if (gst_harness_push(h, make_frame(gray, GST_VIDEO_FORMAT_GRAY8)) != GST_FLOW_OK)
      break;
    take_outputs();
  }
  gst_harness_push_event(h, gst_event_new_eos());
  take_outputs();
  gst_bus_set_flushing(bus, TRUE);
  gst_object_unref(bus);
  gst_harness_teardown(h);
  return frames;
}

// The extractor is the GPU's in both runs, so only the matcher differs; on the GPU it matches
// the descriptors gpusiftfilter copied in device memory, on the CPU the host rows.
TEST(KeypointTrackerCuda, TheGpuMatcherGivesTheCpuMatchersTracksAndMotions) {
  const int count = 30;
  const cv::Size size(1280, 720);
  const auto gpu = run_camera(
      "gpusiftfilter backend=cuda ! keypointtracker backend=cuda post-messages=true", count, size);
  const auto cpu = run_camera(
      "gpusiftfilter backend=cuda ! keypointtracker backend=cpu post-messages=true", count, size);
  ASSERT_EQ(gpu.size(), static_cast<size_t>(count));
  ASSERT_EQ(cpu.size(), static_cast<size_t>(count));
  for (int t = 0; t < count; ++t) {
    const FrameCopy& g = gpu[t];
    const FrameCopy& c = cpu[t];
    ASSERT_EQ(g.keypoints.size(), c.keypoints.size()) << t;
    ASSERT_EQ(0, std::memcmp(g.keypoints.data(), c.keypoints.data(),
                             g.keypoints.size() * sizeof(GstKeypoint)))
        << "frame " << t << ": the extractor should be deterministic";
    ASSERT_EQ(g.tracks.size(), c.tracks.size()) << t;
    EXPECT_EQ(0, std::memcmp(g.tracks.data(), c.tracks.data(),
                             g.tracks.size() * sizeof(GstKeypointTrack)))
        << "frame " << t;
    // Every field of the motion, the model, frame number and cumulative validity included; the
    // memcmp below covers them all (GstKeypointMotion is zeroed before it is filled), the named
    // checks say which differs.
    EXPECT_EQ(g.motion.model, c.motion.model) << t;
    EXPECT_EQ(g.motion.frame_number, c.motion.frame_number) << t;
    EXPECT_EQ(g.motion.cumulative_valid, c.motion.cumulative_valid) << t;
    EXPECT_EQ(g.motion.matches, c.motion.matches) << t;
    EXPECT_EQ(g.motion.inliers, c.motion.inliers) << t;
    EXPECT_EQ(g.motion.tracks_alive, c.motion.tracks_alive) << t;
    EXPECT_EQ(g.motion.valid, c.motion.valid) << t;
    EXPECT_EQ(0, std::memcmp(&g.motion, &c.motion, sizeof(GstKeypointMotion))) << t;
    // Asked for at the tracker's first frame, device rows come from the second; both frames of
    // a match have them from the third.
    EXPECT_EQ(g.device_meta, t >= 1) << t;
    EXPECT_EQ(g.on_device, t >= 2) << t;
    EXPECT_FALSE(c.device_meta) << t << ": a CPU tracker asks for no device copy";
    EXPECT_FALSE(c.on_device) << t;
    for (int i = 0; i < 9; ++i) {
      EXPECT_EQ(g.motion.matrix[i], c.motion.matrix[i]) << t << " " << i;
      EXPECT_EQ(g.motion.cumulative[i], c.motion.cumulative[i]) << t << " " << i;
    }
  }
}

// Two frames in flight: the GPU matches a frame while gpusiftfilter makes the next; the tracks
// are the same, bit for bit.
TEST(KeypointTrackerCuda, TwoFramesInFlightGiveTheSameTracksAndMotions) {
  const int count = 20;
  const cv::Size size(1280, 720);
  const auto one = run_camera(
      "gpusiftfilter backend=cuda ! keypointtracker backend=cuda post-messages=true", count, size);
  const auto two = run_camera(
      "gpusiftfilter backend=cuda ! keypointtracker backend=cuda post-messages=true "
      "max-frames-in-flight=2",
      count, size);
  ASSERT_EQ(one.size(), static_cast<size_t>(count));
  ASSERT_EQ(two.size(), static_cast<size_t>(count));
  for (int t = 0; t < count; ++t) {
    ASSERT_EQ(one[t].tracks.size(), two[t].tracks.size()) << t;
    EXPECT_EQ(0, std::memcmp(one[t].tracks.data(), two[t].tracks.data(),
                             one[t].tracks.size() * sizeof(GstKeypointTrack)))
        << t;
    EXPECT_EQ(0, std::memcmp(&one[t].motion, &two[t].motion, sizeof(GstKeypointMotion))) << t;
    EXPECT_EQ(one[t].on_device, two[t].on_device) << t;
  }
}

GstClockTime latency_at(GstElement* pipeline, const char* element_name) {
  GstElement* element = gst_bin_get_by_name(GST_BIN(pipeline), element_name);
  GstPad* src = gst_element_get_static_pad(element, "src");
  GstQuery* query = gst_query_new_latency();
  GstClockTime min = GST_CLOCK_TIME_NONE;
  if (gst_pad_query(src, query))
    gst_query_parse_latency(query, nullptr, &min, nullptr);
  gst_query_unref(query);
  gst_object_unref(src);
  gst_object_unref(element);
  return min;
}

// max-frames-in-flight=auto (the default) on the GPU: a frame more latency after a non-live
// source, none after a live one.
TEST(KeypointTrackerCuda, AutoFramesInFlightFollowUpstreamLiveness) {
  for (bool live : {false, true}) {
    GstElement* pipeline = gst_parse_launch(
        (std::string("videotestsrc is-live=") + (live ? "true" : "false") +
         " num-buffers=20 ! video/x-raw,format=NV12,width=320,height=240,framerate=30/1 ! "
         "gpusiftfilter name=f backend=cuda ! keypointtracker name=t backend=cuda ! fakesink")
            .c_str(),
        nullptr);
    ASSERT_NE(pipeline, nullptr);
    ASSERT_EQ(gst_test::play_until_end(pipeline, 30 * GST_SECOND), GST_MESSAGE_EOS);
    const GstClockTime added = latency_at(pipeline, "t") - latency_at(pipeline, "f");
    EXPECT_EQ(added, live ? 0 : gst_util_uint64_scale_int(GST_SECOND, 1, 30)) << live;
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
  }
}

TEST(KeypointTrackerCuda, SharesGpusiftfiltersContext) {
  GstElement* pipeline = gst_parse_launch(
      "videotestsrc num-buffers=3 ! video/x-raw,format=NV12,width=320,height=240 ! "
      "gpusiftfilter name=f backend=cuda ! keypointtracker name=t backend=cuda ! fakesink",
      nullptr);
  ASSERT_NE(pipeline, nullptr);
  ASSERT_EQ(gst_test::play_until_end(pipeline, 30 * GST_SECOND), GST_MESSAGE_EOS);
  GstElement* filter = gst_bin_get_by_name(GST_BIN(pipeline), "f");
  GstElement* tracker = gst_bin_get_by_name(GST_BIN(pipeline), "t");
  GstCudaContext* a = cuda_context_of(filter);
  GstCudaContext* b = cuda_context_of(tracker);
  EXPECT_NE(a, nullptr);
  EXPECT_EQ(a, b);
  gst_clear_object(&a);
  gst_clear_object(&b);
  gst_object_unref(filter);
  gst_object_unref(tracker);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

}  // namespace
}  // namespace gpusift::testing
