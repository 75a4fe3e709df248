// SPDX-License-Identifier: LGPL-2.1-or-later
// keypointtracker on the CPU backend through GstHarness: known motions of synthetic keypoints
// for every motion model, track ids, every reset, passthrough without the meta, messages,
// properties, and state cycles without leaks.
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/keypoints/gstkeypointstracksmeta.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gpusift/extractor.h"
#include "tracker_test_support.h"

namespace gpusift::testing {
namespace {

const cv::Size kFrame(640, 480);
const std::string kCaps = "video/x-raw,format=GRAY8,width=640,height=480,framerate=30/1";

GstHarness* cpu_tracker(const std::string& properties = "") {
  GstHarness* h = element_harness("keypointtracker", "backend=cpu " + properties);
  gst_harness_set_src_caps_str(h, kCaps.c_str());
  return h;
}

// Moves about the frame centre: a rotation by `degrees`, a zoom and a shift.
cv::Matx33d similarity(double degrees, double scale, double dx, double dy) {
  const double a = degrees * CV_PI / 180.0, c = std::cos(a) * scale, s = std::sin(a) * scale;
  const double cx = kFrame.width / 2.0, cy = kFrame.height / 2.0;
  return cv::Matx33d(c, -s, cx + dx - (c * cx - s * cy), s, c, cy + dy - (s * cx + c * cy), 0, 0,
                     1);
}

// Pushes one frame and returns its output; the tracks meta must be there.
GstBuffer* track(GstHarness* h, const SyntheticFrame& frame) {
  GstBuffer* out = push_and_pull(h, buffer_with_keypoints(frame, kFrame));
  EXPECT_NE(out, nullptr);
  if (out) {
    EXPECT_NE(gst_buffer_get_keypoints_tracks_meta(out), nullptr);
  }
  return out;
}

const GstKeypointsTracksMeta* tracks_of(GstBuffer* buffer) {
  return gst_buffer_get_keypoints_tracks_meta(buffer);
}

std::set<guint64> ids_of(const GstKeypointsTracksMeta* meta) {
  std::set<guint64> ids;
  for (guint i = 0; i < meta->n_tracks; ++i)
    ids.insert(meta->tracks[i].track_id);
  return ids;
}

struct ModelCase {
  const char* name;
  cv::Matx33d motion;
};

class KnownMotion : public ::testing::TestWithParam<ModelCase> {};

// Frame 1 is frame 0 moved by the model's own kind of motion, shuffled, with 10 % of its
// keypoints thrown elsewhere: the motion comes back, inliers keep their ids, outliers do not.
TEST_P(KnownMotion, IsRecoveredAndInliersKeepTheirIds) {
  const ModelCase& c = GetParam();
  const SyntheticScene scene = random_scene(300, kFrame, 1);
  const SyntheticFrame first = synthetic_frame(scene, cv::Matx33d::eye(), 0.0f, 2);
  std::vector<int> order;
  for (int i = 299; i >= 0; --i)
    order.push_back(i);
  SyntheticFrame second = synthetic_frame(scene, c.motion, 0.1f, 3, order);
  for (size_t i = 0; i < second.keypoints.size(); i += 10) {
    second.keypoints[i].x = std::fmod(second.keypoints[i].x + 200.0f, 600.0f);
    second.keypoints[i].y = std::fmod(second.keypoints[i].y + 150.0f, 440.0f);
  }

  GstHarness* h = cpu_tracker(std::string("motion-model=") + c.name);
  GstBuffer* a = track(h, first);
  GstBuffer* b = track(h, second);
  ASSERT_TRUE(a && b);
  const GstKeypointsTracksMeta* ta = tracks_of(a);
  const GstKeypointsTracksMeta* tb = tracks_of(b);
  EXPECT_EQ(ta->motion.frame_number, 0u);
  EXPECT_FALSE(ta->motion.valid);
  EXPECT_EQ(ta->motion.matches, 0u);
  EXPECT_EQ(ta->n_tracks, 300u);
  EXPECT_EQ(ids_of(ta).size(), 300u);
  for (guint i = 0; i < ta->n_tracks; ++i) {
    EXPECT_EQ(ta->tracks[i].previous_index, -1);
    EXPECT_EQ(ta->tracks[i].age, 0u);
  }

  EXPECT_EQ(tb->motion.frame_number, 1u);
  EXPECT_EQ(tb->width, 640u);
  EXPECT_EQ(tb->motion.matches, 300u);
  EXPECT_TRUE(tb->motion.valid);
  EXPECT_TRUE(tb->motion.cumulative_valid);
  EXPECT_GE(tb->motion.inliers, 265u);
  EXPECT_LE(tb->motion.inliers, 272u);
  EXPECT_EQ(tb->motion.tracks_alive, 300u + 30u);  // the outliers' old tracks wait as missed
  EXPECT_LT(corner_error(matrix_of(tb->motion.matrix), c.motion, kFrame), 0.3);
  EXPECT_LT(corner_error(matrix_of(tb->motion.cumulative), c.motion, kFrame), 0.3);
  guint64 max_first = *ids_of(ta).rbegin();
  for (guint i = 0; i < tb->n_tracks; ++i) {
    const GstKeypointTrack& t = tb->tracks[i];
    if (i % 10 == 0) {
      EXPECT_EQ(t.previous_index, -1) << i;
      EXPECT_GT(t.track_id, max_first) << i;
      EXPECT_EQ(t.age, 0u);
      continue;
    }
    const int scene_index = second.scene_index[i];
    EXPECT_EQ(t.previous_index, scene_index) << i;  // frame 0 is in scene order
    EXPECT_EQ(t.track_id, ta->tracks[scene_index].track_id) << i;
    EXPECT_EQ(t.age, 1u);
  }
  gst_buffer_unref(a);
  gst_buffer_unref(b);
  teardown_harness(h);
}

INSTANTIATE_TEST_SUITE_P(
    EveryModel, KnownMotion,
    ::testing::Values(ModelCase{"translation", cv::Matx33d(1, 0, 7.5, 0, 1, -4.25, 0, 0, 1)},
                      ModelCase{"similarity", similarity(8.0, 1.07, 5.0, -3.0)},
                      ModelCase{"affine",
                                cv::Matx33d(1.05, 0.08, -12.0, -0.04, 0.93, 20.0, 0, 0, 1)},
                      ModelCase{"homography", cv::Matx33d(1.02, 0.05, -10.0, -0.03, 0.98, 8.0, 4e-5,
                                                          -3e-5, 1.0)}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(KeypointTracker, ModelNoneContinuesEveryMatchAndFitsNothing) {
  const SyntheticScene scene = random_scene(100, kFrame, 4);
  GstHarness* h = cpu_tracker("motion-model=none");
  GstBuffer* a = track(h, synthetic_frame(scene, cv::Matx33d::eye(), 0.0f, 5));
  SyntheticFrame moved = synthetic_frame(scene, similarity(20, 1.0, 30, 0), 0.0f, 6);
  moved.keypoints[0].x = 5.0f;  // no model: no outliers either
  GstBuffer* b = track(h, moved);
  const GstKeypointsTracksMeta* tb = tracks_of(b);
  EXPECT_FALSE(tb->motion.valid);
  EXPECT_FALSE(tb->motion.cumulative_valid);
  EXPECT_EQ(tb->motion.model, GST_KEYPOINT_MOTION_MODEL_NONE);
  EXPECT_EQ(tb->motion.matches, 100u);
  EXPECT_EQ(tb->motion.inliers, 0u);
  EXPECT_EQ(ids_of(tb), ids_of(tracks_of(a)));
  for (int i = 0; i < 9; ++i)
    EXPECT_EQ(tb->motion.matrix[i], i % 4 == 0 ? 1.0 : 0.0);
  gst_buffer_unref(a);
  gst_buffer_unref(b);
  teardown_harness(h);
}

// Keypoints 0-49 of the scene are missing from frame 1, back in frame 2. With max-missed 1 they
// resume their ids; with 0 their tracks ended in frame 1 and they start new ones.
class MissedFrames : public ::testing::TestWithParam<int> {};

TEST_P(MissedFrames, TracksResumeWithinMaxMissedAndEndAfter) {
  const int max_missed = GetParam();
  const SyntheticScene scene = random_scene(200, kFrame, 7);
  std::vector<int> without_first_50;
  for (int i = 50; i < 200; ++i)
    without_first_50.push_back(i);
  GstHarness* h = cpu_tracker("max-missed=" + std::to_string(max_missed));
  const cv::Matx33d step(1, 0, 3, 0, 1, 2, 0, 0, 1);
  GstBuffer* f0 = track(h, synthetic_frame(scene, cv::Matx33d::eye(), 0.0f, 8));
  GstBuffer* f1 = track(h, synthetic_frame(scene, step, 0.0f, 9, without_first_50));
  GstBuffer* f2 = track(h, synthetic_frame(scene, step * step, 0.0f, 10));
  const GstKeypointsTracksMeta* t0 = tracks_of(f0);
  const GstKeypointsTracksMeta* t1 = tracks_of(f1);
  const GstKeypointsTracksMeta* t2 = tracks_of(f2);
  EXPECT_EQ(t1->motion.tracks_alive, max_missed >= 1 ? 200u : 150u);
  EXPECT_EQ(t2->motion.tracks_alive, 200u);
  const guint64 max_before = *ids_of(t1).rbegin();
  for (int i = 0; i < 200; ++i) {
    const GstKeypointTrack& now = t2->tracks[i];
    if (i >= 50) {
      EXPECT_EQ(now.track_id, t0->tracks[i].track_id);
      EXPECT_EQ(now.previous_index, i - 50);
      EXPECT_EQ(now.age, 2u);
    } else if (max_missed >= 1) {
      EXPECT_EQ(now.track_id, t0->tracks[i].track_id) << i;
      EXPECT_EQ(now.previous_index, -1);
      EXPECT_EQ(now.age, 2u);
    } else {
      EXPECT_GT(now.track_id, max_before) << i;
      EXPECT_EQ(now.age, 0u);
    }
  }
  gst_buffer_unref(f0);
  gst_buffer_unref(f1);
  gst_buffer_unref(f2);
  teardown_harness(h);
}

INSTANTIATE_TEST_SUITE_P(ZeroAndOne, MissedFrames, ::testing::Values(0, 1));

TEST(KeypointTracker, CumulativeMotionChainsTheFramesAndKeyframesAgree) {
  const SyntheticScene scene = random_scene(250, kFrame, 11);
  const cv::Matx33d step = similarity(1.5, 1.01, 2.0, -1.0);
  for (const char* keyframes : {"0", "4"}) {
    GstHarness* h = cpu_tracker(std::string("keyframe-interval=") + keyframes);
    cv::Matx33d truth = cv::Matx33d::eye();
    for (int frame = 0; frame < 10; ++frame) {
      GstBuffer* out = track(h, synthetic_frame(scene, truth, 0.05f, 100 + frame));
      const GstKeypointsTracksMeta* t = tracks_of(out);
      EXPECT_EQ(t->motion.frame_number, static_cast<guint64>(frame));
      EXPECT_TRUE(t->motion.cumulative_valid);
      EXPECT_LT(corner_error(matrix_of(t->motion.cumulative), truth, kFrame), 0.5)
          << "keyframe-interval " << keyframes << " frame " << frame;
      gst_buffer_unref(out);
      truth = step * truth;
    }
    teardown_harness(h);
  }
}

// Frame 0 and 1 track; then `disturb` happens; the next frame starts over: frame number 0, the
// identity, and only ids never seen before.
void expect_reset_after(GstHarness* h, const std::function<void()>& disturb,
                        const std::string& what) {
  const SyntheticScene scene = random_scene(80, kFrame, 12);
  const cv::Matx33d step(1, 0, 4, 0, 1, 0, 0, 0, 1);
  GstBuffer* f0 = track(h, synthetic_frame(scene, cv::Matx33d::eye(), 0.0f, 13));
  GstBuffer* f1 = track(h, synthetic_frame(scene, step, 0.0f, 14));
  ASSERT_EQ(tracks_of(f1)->motion.frame_number, 1u) << what;
  const guint64 max_before = *ids_of(tracks_of(f1)).rbegin();
  disturb();
  GstBuffer* f2 = track(h, synthetic_frame(scene, step * step, 0.0f, 15));
  const GstKeypointsTracksMeta* t2 = tracks_of(f2);
  EXPECT_EQ(t2->motion.frame_number, 0u) << what;
  EXPECT_EQ(t2->motion.matches, 0u) << what;
  EXPECT_GT(*ids_of(t2).begin(), max_before) << what << ": ids are never reused";
  for (int i = 0; i < 9; ++i)
    EXPECT_EQ(t2->motion.cumulative[i], i % 4 == 0 ? 1.0 : 0.0) << what;
  GstBuffer* f3 = track(h, synthetic_frame(scene, step * step * step, 0.0f, 16));
  EXPECT_EQ(tracks_of(f3)->motion.frame_number, 1u) << what << ": tracking goes on";
  EXPECT_EQ(ids_of(tracks_of(f3)), ids_of(t2)) << what;
  for (GstBuffer* b : {f0, f1, f2, f3})
    gst_buffer_unref(b);
}

TEST(KeypointTrackerReset, OnCapsChange) {
  GstHarness* h = cpu_tracker();
  expect_reset_after(
      h,
      [h] {
        gst_harness_set_src_caps_str(
            h, "video/x-raw,format=GRAY8,width=640,height=480,framerate=25/1");
      },
      "caps change");
  teardown_harness(h);
}

TEST(KeypointTrackerReset, OnFlushAndNewSegment) {
  GstHarness* h = cpu_tracker();
  expect_reset_after(
      h,
      [h] {
        EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_flush_start()));
        EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_flush_stop(TRUE)));
        GstSegment segment;
        gst_segment_init(&segment, GST_FORMAT_TIME);
        EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_segment(&segment)));
      },
      "flush");
  teardown_harness(h);
}

TEST(KeypointTrackerReset, OnASegmentAlone) {
  GstHarness* h = cpu_tracker();
  expect_reset_after(
      h,
      [h] {
        GstSegment segment;
        gst_segment_init(&segment, GST_FORMAT_TIME);
        segment.start = segment.time = 10 * GST_SECOND;
        EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_segment(&segment)));
      },
      "segment");
  teardown_harness(h);
}

TEST(KeypointTrackerReset, OnAGap) {
  GstHarness* h = cpu_tracker();
  expect_reset_after(
      h, [h] { EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_gap(0, GST_SECOND))); }, "gap");
  teardown_harness(h);
}

TEST(KeypointTrackerReset, OnADiscontinuousBuffer) {
  GstHarness* h = cpu_tracker();
  const SyntheticScene scene = random_scene(80, kFrame, 17);
  GstBuffer* f0 = track(h, synthetic_frame(scene, cv::Matx33d::eye(), 0.0f, 18));
  GstBuffer* f1 = track(h, synthetic_frame(scene, cv::Matx33d::eye(), 0.0f, 19));
  EXPECT_EQ(tracks_of(f1)->motion.frame_number, 1u);
  GstBuffer* in =
      buffer_with_keypoints(synthetic_frame(scene, cv::Matx33d::eye(), 0.0f, 20), kFrame);
  GST_BUFFER_FLAG_SET(in, GST_BUFFER_FLAG_DISCONT);
  GstBuffer* f2 = push_and_pull(h, in);
  EXPECT_EQ(tracks_of(f2)->motion.frame_number, 0u);
  EXPECT_GT(*ids_of(tracks_of(f2)).begin(), *ids_of(tracks_of(f1)).rbegin());
  for (GstBuffer* b : {f0, f1, f2})
    gst_buffer_unref(b);
  teardown_harness(h);
}

TEST(KeypointTrackerReset, OnAResolutionChangeOfTheMeta) {
  GstHarness* h = cpu_tracker();
  const SyntheticScene scene = random_scene(80, cv::Size(320, 240), 21);
  GstBuffer* f0 = track(h, synthetic_frame(scene, cv::Matx33d::eye(), 0.0f, 22));
  GstBuffer* in = buffer_with_keypoints(synthetic_frame(scene, cv::Matx33d::eye(), 0.0f, 23),
                                        cv::Size(320, 240));
  GstBuffer* f1 = push_and_pull(h, in);
  EXPECT_EQ(tracks_of(f1)->motion.frame_number, 0u);
  EXPECT_EQ(tracks_of(f1)->width, 320u);
  gst_buffer_unref(f0);
  gst_buffer_unref(f1);
  teardown_harness(h);
}

// Buffers without the meta pass as they came (same memory, no tracks) with one warning for the
// stream; the first frame with keypoints after them starts tracking afresh.
TEST(KeypointTracker, BuffersWithoutKeypointsPassThroughWithOneWarning) {
  GstHarness* h = cpu_tracker();
  const SyntheticScene scene = random_scene(60, kFrame, 24);
  GstBuffer* f0 = track(h, synthetic_frame(scene, cv::Matx33d::eye(), 0.0f, 25));
  for (int i = 0; i < 5; ++i) {
    GstBuffer* in = gst_buffer_new_allocate(nullptr, 640 * 480, nullptr);
    gst_buffer_memset(in, 0, static_cast<guint8>(i), 640 * 480);
    GstMemory* memory = gst_buffer_peek_memory(in, 0);
    GstBuffer* out = push_and_pull(h, in);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(gst_buffer_peek_memory(out, 0), memory);
    EXPECT_EQ(gst_buffer_get_keypoints_tracks_meta(out), nullptr);
    GstMapInfo map;
    ASSERT_TRUE(gst_buffer_map(out, &map, GST_MAP_READ));
    EXPECT_EQ(map.data[1234], i);
    gst_buffer_unmap(out, &map);
    gst_buffer_unref(out);
  }
  auto warnings = bus_messages(h, GST_MESSAGE_WARNING);
  ASSERT_EQ(warnings.size(), 1u);
  GError* error = nullptr;
  gst_message_parse_warning(warnings[0], &error, nullptr);
  EXPECT_TRUE(g_error_matches(error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT));
  g_clear_error(&error);
  unref_all(&warnings);

  GstBuffer* f1 = track(h, synthetic_frame(scene, cv::Matx33d::eye(), 0.0f, 26));
  EXPECT_EQ(tracks_of(f1)->motion.frame_number, 0u);
  EXPECT_GT(*ids_of(tracks_of(f1)).begin(), *ids_of(tracks_of(f0)).rbegin());
  gst_buffer_unref(f0);
  gst_buffer_unref(f1);
  teardown_harness(h);
}

TEST(KeypointTracker, KeypointsWithoutDescriptorsPassThroughWithOneWarning) {
  GstHarness* h = cpu_tracker();
  const GstKeypoint keypoint{10.0f, 10.0f, 4.0f, 0.0f, 0.1f, 0, -1};
  for (int i = 0; i < 3; ++i) {
    GstBuffer* in = gst_buffer_new_allocate(nullptr, 640 * 480, nullptr);
    gst_buffer_add_keypoints_meta(in, GST_KEYPOINTS_METHOD_SIFT, 640, 480, &keypoint, 1,
                                  GST_KEYPOINTS_DESCRIPTOR_NONE, 0, nullptr);
    GstBuffer* out = push_and_pull(h, in);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(gst_buffer_get_keypoints_tracks_meta(out), nullptr);
    gst_buffer_unref(out);
  }
  auto warnings = bus_messages(h, GST_MESSAGE_WARNING);
  EXPECT_EQ(warnings.size(), 1u);
  unref_all(&warnings);
  teardown_harness(h);
}

TEST(KeypointTracker, EmptyFramesAndUint8DescriptorsAreTracked) {
  GstHarness* h = cpu_tracker();
  const SyntheticScene scene = random_scene(50, kFrame, 27);
  const SyntheticFrame frame = synthetic_frame(scene, cv::Matx33d::eye(), 0.0f, 28);
  std::vector<guint8> bytes;
  for (float v : frame.descriptors)
    bytes.push_back(static_cast<guint8>(std::min(255.0f, v * 512.0f)));
  guint64 first_id = 0;
  for (int i = 0; i < 3; ++i) {
    GstBuffer* in = gst_buffer_new_allocate(nullptr, 640 * 480, nullptr);
    const guint n = i == 1 ? 0 : 50;  // an empty frame between two full ones
    gst_buffer_add_keypoints_meta(in, GST_KEYPOINTS_METHOD_SIFT, 640, 480, frame.keypoints.data(),
                                  n, GST_KEYPOINTS_DESCRIPTOR_UINT8, 128,
                                  n ? bytes.data() : nullptr);
    GstBuffer* out = push_and_pull(h, in);
    const GstKeypointsTracksMeta* t = tracks_of(out);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->n_tracks, n);
    EXPECT_EQ(t->motion.frame_number, static_cast<guint64>(i));
    if (i == 0)
      first_id = t->tracks[0].track_id;
    if (i == 2) {
      EXPECT_EQ(t->tracks[0].track_id, first_id) << "resumed after one missed frame";
      EXPECT_EQ(t->motion.matches, 0u);
    }
    gst_buffer_unref(out);
  }
  teardown_harness(h);
}

TEST(KeypointTracker, PostsAMessagePerFrameWhenAsked) {
  GstHarness* h = cpu_tracker("post-messages=true motion-model=translation");
  const SyntheticScene scene = random_scene(100, kFrame, 29);
  const cv::Matx33d shift(1, 0, 6, 0, 1, -2, 0, 0, 1);
  GstBuffer* in0 = buffer_with_keypoints(synthetic_frame(scene, cv::Matx33d::eye(), 0, 30), kFrame);
  GstBuffer* in1 = buffer_with_keypoints(synthetic_frame(scene, shift, 0, 31), kFrame);
  GST_BUFFER_PTS(in0) = 0;
  GST_BUFFER_PTS(in1) = 40 * GST_MSECOND;
  gst_buffer_unref(push_and_pull(h, in0));
  gst_buffer_unref(push_and_pull(h, in1));
  auto messages = bus_messages(h, GST_MESSAGE_ELEMENT);
  ASSERT_EQ(messages.size(), 2u);
  const GstStructure* s = gst_message_get_structure(messages[1]);
  EXPECT_TRUE(gst_structure_has_name(s, "keypointtracker"));
  guint64 timestamp = 0, frame_number = 0;
  guint matches = 0, inliers = 0, alive = 0, fresh = 9, ended = 9;
  gboolean valid = FALSE;
  EXPECT_TRUE(gst_structure_get_uint64(s, "timestamp", &timestamp));
  EXPECT_TRUE(gst_structure_get_uint64(s, "frame-number", &frame_number));
  EXPECT_TRUE(gst_structure_get_uint(s, "matches", &matches));
  EXPECT_TRUE(gst_structure_get_uint(s, "inliers", &inliers));
  EXPECT_TRUE(gst_structure_get_uint(s, "tracks-alive", &alive));
  EXPECT_TRUE(gst_structure_get_uint(s, "new-tracks", &fresh));
  EXPECT_TRUE(gst_structure_get_uint(s, "ended-tracks", &ended));
  EXPECT_TRUE(gst_structure_get_boolean(s, "motion-valid", &valid));
  EXPECT_STREQ(gst_structure_get_string(s, "motion-model"), "translation");
  EXPECT_EQ(timestamp, 40 * GST_MSECOND);
  EXPECT_EQ(frame_number, 1u);
  EXPECT_EQ(matches, 100u);
  EXPECT_EQ(inliers, 100u);
  EXPECT_EQ(alive, 100u);
  EXPECT_EQ(fresh, 0u);
  EXPECT_EQ(ended, 0u);
  EXPECT_TRUE(valid);
  for (const char* name : {"motion", "cumulative"}) {
    const GValue* array = gst_structure_get_value(s, name);
    ASSERT_NE(array, nullptr) << name;
    ASSERT_TRUE(GST_VALUE_HOLDS_ARRAY(array)) << name;
    ASSERT_EQ(gst_value_array_get_size(array), 9u);
    std::vector<double> m;
    for (guint i = 0; i < 9; ++i)
      m.push_back(g_value_get_double(gst_value_array_get_value(array, i)));
    EXPECT_NEAR(m[2], 6.0, 1e-3) << name;
    EXPECT_NEAR(m[5], -2.0, 1e-3) << name;
    EXPECT_NEAR(m[0], 1.0, 1e-9) << name;
  }
  unref_all(&messages);

  g_object_set(h->element, "post-messages", FALSE, nullptr);
  gst_buffer_unref(push_and_pull(
      h, buffer_with_keypoints(synthetic_frame(scene, shift * shift, 0, 32), kFrame)));
  messages = bus_messages(h, GST_MESSAGE_ELEMENT);
  EXPECT_TRUE(messages.empty());
  unref_all(&messages);
  teardown_harness(h);
}

TEST(KeypointTracker, PropertiesHaveTheirDefaultsChangeWhilePlayingAndRefuseBadValues) {
  GstHarness* h = cpu_tracker();
  gdouble ratio = 0, threshold = 0;
  gboolean cross_check = TRUE, post = TRUE;
  gint max_missed = -1, keyframes = -1, model = -1, device = 0;
  g_object_get(h->element, "ratio", &ratio, "ransac-threshold", &threshold, "cross-check",
               &cross_check, "post-messages", &post, "max-missed", &max_missed, "keyframe-interval",
               &keyframes, "motion-model", &model, "cuda-device-id", &device, nullptr);
  EXPECT_NEAR(ratio, 0.8, 1e-6);
  EXPECT_EQ(threshold, 3.0);
  EXPECT_FALSE(cross_check);
  EXPECT_FALSE(post);
  EXPECT_EQ(max_missed, 5);
  EXPECT_EQ(keyframes, 10);
  EXPECT_EQ(model, GST_KEYPOINT_MOTION_MODEL_HOMOGRAPHY);
  EXPECT_EQ(device, -1);

  // Changes apply from the next frame.
  const SyntheticScene scene = random_scene(60, kFrame, 33);
  GstBuffer* f0 = track(h, synthetic_frame(scene, cv::Matx33d::eye(), 0.0f, 34));
  g_object_set(h->element, "motion-model", GST_KEYPOINT_MOTION_MODEL_TRANSLATION, "cross-check",
               TRUE, "ratio", 0.5, nullptr);
  GstBuffer* f1 = track(h, synthetic_frame(scene, cv::Matx33d::eye(), 0.0f, 35));
  EXPECT_EQ(tracks_of(f0)->motion.model, GST_KEYPOINT_MOTION_MODEL_HOMOGRAPHY);
  EXPECT_EQ(tracks_of(f1)->motion.model, GST_KEYPOINT_MOTION_MODEL_TRANSLATION);
  EXPECT_EQ(tracks_of(f1)->motion.matches, 60u);
  EXPECT_EQ(ids_of(tracks_of(f1)), ids_of(tracks_of(f0)));
  gst_buffer_unref(f0);
  gst_buffer_unref(f1);

  struct Bad {
    const char* name;
    double value;
  };
  for (const Bad& bad :
       {Bad{"ratio", -0.1}, Bad{"ratio", 1.5}, Bad{"ransac-threshold", 0.0},
        Bad{"ransac-threshold", -2.0}, Bad{"max-missed", -1}, Bad{"max-missed", 5000},
        Bad{"keyframe-interval", -3}, Bad{"cuda-device-id", -2}}) {
    GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(h->element), bad.name);
    ASSERT_NE(spec, nullptr) << bad.name;
    GValue value = G_VALUE_INIT;
    g_value_init(&value, G_PARAM_SPEC_VALUE_TYPE(spec));
    if (G_VALUE_HOLDS_DOUBLE(&value))
      g_value_set_double(&value, bad.value);
    else
      g_value_set_int(&value, static_cast<int>(bad.value));
    EXPECT_TRUE(g_param_value_validate(spec, &value)) << bad.name << " accepts " << bad.value;
    g_value_unset(&value);
  }
  for (const char* name : {"backend", "cuda-device-id"}) {
    GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(h->element), name);
    EXPECT_TRUE(spec->flags & GST_PARAM_MUTABLE_READY) << name;
  }
  teardown_harness(h);
}

TEST(KeypointTracker, CudaBackendWithoutAGpuFailsToStart) {
  if (cuda_device_count() > 0)
    GTEST_SKIP() << "a GPU is present: the GPU suite covers the CUDA backend";
  GstElement* pipeline = gst_parse_launch(
      "videotestsrc num-buffers=2 ! video/x-raw,format=I420,width=160,height=120 ! "
      "gpusiftfilter backend=cpu ! keypointtracker backend=cuda ! fakesink",
      nullptr);
  ASSERT_NE(pipeline, nullptr);
  EXPECT_EQ(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  GstBus* bus = gst_element_get_bus(pipeline);
  GstMessage* error = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  ASSERT_NE(error, nullptr);
  GError* gerror = nullptr;
  gst_message_parse_error(error, &gerror, nullptr);
  EXPECT_TRUE(g_error_matches(gerror, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND));
  g_clear_error(&gerror);
  gst_message_unref(error);
  gst_bus_set_flushing(bus, TRUE);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

// A GPU tracker asks gpusiftfilter for device copies of the descriptors with this upstream event
// (gst/keypoints/gstkeypointsdevicemeta.c); the filter takes it, and on the CPU backend has none to
// give.
TEST(KeypointTracker, GpusiftfilterTakesTheDeviceDescriptorRequest) {
  GstHarness* h = element_harness("gpusiftfilter", "backend=cpu");
  gst_harness_set_src_caps_str(h, "video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1");
  EXPECT_TRUE(gst_harness_push_upstream_event(
      h, gst_event_new_custom(GST_EVENT_CUSTOM_UPSTREAM,
                              gst_structure_new_empty("gpusift-device-descriptors-request"))));
  while (GstEvent* upstream = gst_harness_try_pull_upstream_event(h)) {
    EXPECT_FALSE(gst_event_has_name(upstream, "gpusift-device-descriptors-request"))
        << "consumed, not passed on";
    gst_event_unref(upstream);
  }
  GstBuffer* in = gst_buffer_new_allocate(nullptr, 64 * 48, nullptr);
  gst_buffer_memset(in, 0, 0x80, 64 * 48);
  GstBuffer* out = push_and_pull(h, in);
  ASSERT_NE(out, nullptr);
  EXPECT_NE(gst_buffer_get_keypoints_meta(out), nullptr);
  const GType device_api = g_type_from_name("GstKeypointsDeviceMetaAPI");
  EXPECT_TRUE(device_api == 0 || gst_buffer_get_meta(out, device_api) == nullptr);
  gst_buffer_unref(out);
  teardown_harness(h);
}

TEST(KeypointTracker, TwentyStateCyclesWithEosAndFlushLeakNothing) {
  const int trackers_before = live_objects_named("GstKeypointTracker");
  const int buffers_before = live_objects_named("GstBuffer");
  ASSERT_GE(trackers_before, 0) << "the leaks tracer is not active";
  for (int cycle = 0; cycle < 20; ++cycle) {
    GstElement* pipeline = gst_parse_launch(
        "videotestsrc num-buffers=4 pattern=ball ! video/x-raw,format=NV12,width=96,height=72 ! "
        "gpusiftfilter backend=cpu ! keypointtracker backend=cpu post-messages=true ! "
        "fakesink sync=false",
        nullptr);
    ASSERT_NE(pipeline, nullptr);
    ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    GstBus* bus = gst_element_get_bus(pipeline);
    if (cycle % 2 == 1) {  // flush half of the runs mid-stream
      gst_element_get_state(pipeline, nullptr, nullptr, GST_CLOCK_TIME_NONE);
      gst_element_seek_simple(pipeline, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH, 0);
    }
    GstMessage* end = gst_bus_timed_pop_filtered(
        bus, 30 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    ASSERT_NE(end, nullptr);
    EXPECT_EQ(GST_MESSAGE_TYPE(end), GST_MESSAGE_EOS);
    gst_message_unref(end);
    gst_bus_set_flushing(bus, TRUE);
    gst_object_unref(bus);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
  }
  EXPECT_EQ(live_objects_named("GstKeypointTracker"), trackers_before);
  EXPECT_EQ(live_objects_named("GstBuffer"), buffers_before);
}

// Ids go on counting up when the element goes through READY: an element never reuses one.
TEST(KeypointTracker, IdsKeepCountingAcrossStateChanges) {
  GstHarness* h = cpu_tracker();
  const SyntheticScene scene = random_scene(40, kFrame, 36);
  GstBuffer* f0 = track(h, synthetic_frame(scene, cv::Matx33d::eye(), 0.0f, 37));
  const guint64 max_before = *ids_of(tracks_of(f0)).rbegin();
  gst_buffer_unref(f0);
  ASSERT_EQ(gst_element_set_state(h->element, GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
  ASSERT_EQ(gst_element_set_state(h->element, GST_STATE_PLAYING), GST_STATE_CHANGE_SUCCESS);
  // The state change dropped the element's sticky events: a new stream.
  EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_stream_start("again")));
  gst_harness_set_src_caps_str(h, kCaps.c_str());
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  EXPECT_TRUE(gst_harness_push_event(h, gst_event_new_segment(&segment)));
  GstBuffer* f1 = track(h, synthetic_frame(scene, cv::Matx33d::eye(), 0.0f, 38));
  EXPECT_EQ(tracks_of(f1)->motion.frame_number, 0u);
  EXPECT_GT(*ids_of(tracks_of(f1)).begin(), max_before);
  gst_buffer_unref(f1);
  teardown_harness(h);
}

}  // namespace
}  // namespace gpusift::testing
