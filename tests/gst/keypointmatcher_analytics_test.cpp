// SPDX-License-Identifier: LGPL-2.1-or-later
// keypointmatcher's GStreamer analytics results (built against GStreamer 1.24 and newer with its
// analytics library; CI's Debian 13 stage runs it): read back through the public analytics API
// on real scenes, the object-detection box bounds the corners the matcher reports, with its
// label and confidence; the tracking id holds over a clip while the object stays found and
// changes after a frame without it; the support result names exactly the inliers, all keypoints
// of the frame inside the box; the analytics property switches the results off and on at a frame
// boundary; upstream's objectdetectionoverlay draws the box and nothing far from it.
#include <gst/analytics/gstanalyticsobjectdetectionmtd.h>
#include <gst/analytics/gstanalyticsobjecttrackingmtd.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/keypoints/gstkeypointsobjectmeta.h>
#include <gst/keypoints/gstkeypointssupportmtd.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "frame_factory.h"
#include "object_scenes.h"
#include "tracker_test_support.h"

namespace gpusift::testing {
namespace {

GstHarness* find_harness(const std::string& tail) {
  const std::string description =
      "gpusiftfilter backend=cpu ! keypointmatcher backend=cpu "
      "post-messages=true label=cat reference=\"" +
      ReferenceFiles::get().png() + "\" " + tail;
  GstHarness* h = gst_harness_new_parse(description.c_str());
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(h->element, bus);
  gst_object_unref(bus);
  gst_harness_set_src_caps_str(
      h, caps_string(GST_VIDEO_FORMAT_BGR, kSceneSize.width, kSceneSize.height).c_str());
  return h;
}

GstBuffer* push_at(GstHarness* h, const cv::Mat& bgr, int frame) {
  GstBuffer* in = make_frame(bgr, GST_VIDEO_FORMAT_BGR);
  GST_BUFFER_PTS(in) = static_cast<GstClockTime>(frame) * 40 * GST_MSECOND;
  return push_and_pull(h, in);
}

// What a reader of the analytics API finds on a buffer: the one object-detection result and the
// results related to it.
struct Results {
  int detections = 0;
  GQuark type = 0;
  gint x = 0, y = 0, w = 0, h = 0;
  gfloat confidence = 0.0f;
  bool tracked = false;
  guint64 track_id = 0;
  GstClockTime first_seen = GST_CLOCK_TIME_NONE, last_seen = GST_CLOCK_TIME_NONE;
  gboolean lost = TRUE;
  bool supported = false;
  std::vector<guint32> support;
};

Results read_results(GstBuffer* buffer) {
  Results r;
  GstAnalyticsRelationMeta* meta = gst_buffer_get_analytics_relation_meta(buffer);
  if (!meta)
    return r;
  gpointer state = nullptr;
  GstAnalyticsODMtd od;
  while (
      gst_analytics_relation_meta_iterate(meta, &state, gst_analytics_od_mtd_get_mtd_type(), &od)) {
    if (++r.detections > 1)
      continue;
    r.type = gst_analytics_od_mtd_get_obj_type(&od);
    EXPECT_TRUE(gst_analytics_od_mtd_get_location(&od, &r.x, &r.y, &r.w, &r.h, &r.confidence));
    gpointer related = nullptr;
    GstAnalyticsTrackingMtd tracking;
    r.tracked = gst_analytics_relation_meta_get_direct_related(
        meta, od.id, GST_ANALYTICS_REL_TYPE_RELATE_TO, gst_analytics_tracking_mtd_get_mtd_type(),
        &related, &tracking);
    if (r.tracked) {
      EXPECT_TRUE(gst_analytics_tracking_mtd_get_info(&tracking, &r.track_id, &r.first_seen,
                                                      &r.last_seen, &r.lost));
    }
    GstKeypointsSupportMtd support;
    r.supported = gst_keypoints_support_mtd_get_related(meta, od.id, &support);
    if (r.supported) {
      guint n = 0;
      const guint32* indices = gst_keypoints_support_mtd_get_indices(&support, &n);
      EXPECT_NE(indices, nullptr);
      if (indices) {
        r.support.assign(indices, indices + n);
      }
      // Related both ways: the support leads back to the detection.
      EXPECT_EQ(gst_analytics_relation_meta_get_relation(meta, support.id, od.id),
                GST_ANALYTICS_REL_TYPE_RELATE_TO);
      EXPECT_STREQ(gst_analytics_mtd_type_get_name(gst_analytics_mtd_get_mtd_type(&support)),
                   "GstKeypointsSupportMtd");
    }
  }
  return r;
}

TEST(KeypointMatcherAnalytics, EveryFoundObjectIsADetectionWithItsTrackAndSupport) {
  const std::vector<ObjectScene> scenes = positive_scenes();
  ASSERT_EQ(scenes.size(), 19u);
  GstHarness* h = find_harness("");
  double worst_box_error = 0.0, fewest_supported = 1.0;
  for (size_t i = 0; i < scenes.size(); ++i) {
    const ObjectScene& scene = scenes[i];
    GstBuffer* out = push_at(h, scene.bgr, static_cast<int>(i));
    ASSERT_NE(out, nullptr);
    const MatcherReport reported = last_matcher_report(h);
    ASSERT_TRUE(reported.found) << scene.name;
    ASSERT_EQ(reported.corners.size(), 8u);
    const Results r = read_results(out);
    ASSERT_EQ(r.detections, 1) << scene.name;
    EXPECT_STREQ(g_quark_to_string(r.type), "cat");
    EXPECT_FLOAT_EQ(r.confidence, static_cast<float>(reported.inliers) / reported.matches);

    // The box against the bounds of the corners the message reports.
    double left = 1e9, right = -1e9, top = 1e9, bottom = -1e9;
    for (int c = 0; c < 4; ++c) {
      left = std::min(left, reported.corners[2 * c]);
      right = std::max(right, reported.corners[2 * c]);
      top = std::min(top, reported.corners[2 * c + 1]);
      bottom = std::max(bottom, reported.corners[2 * c + 1]);
    }
    const double box_error = std::max({std::abs(r.x - left), std::abs(r.x + r.w - 1 - right),
                                       std::abs(r.y - top), std::abs(r.y + r.h - 1 - bottom)});
    EXPECT_LE(box_error, 2.0) << scene.name;
    worst_box_error = std::max(worst_box_error, box_error);

    // Found in every frame: one track, seen first at frame 0 and last now.
    ASSERT_TRUE(r.tracked) << scene.name;
    EXPECT_EQ(r.track_id, 1u) << scene.name;
    EXPECT_EQ(r.first_seen, 0u);
    EXPECT_EQ(r.last_seen, GST_BUFFER_PTS(out));
    EXPECT_FALSE(r.lost);

    // The support: distinct keypoints of the frame in ascending order, nearly one per inlier
    // (two reference keypoints may match one frame keypoint), inside the box but for the
    // RANSAC threshold.
    ASSERT_TRUE(r.supported) << scene.name;
    EXPECT_TRUE(std::adjacent_find(r.support.begin(), r.support.end(),
                                   std::greater_equal<guint32>()) == r.support.end())
        << scene.name;
    EXPECT_LE(r.support.size(), reported.inliers) << scene.name;
    EXPECT_GE(r.support.size(), reported.inliers * 9 / 10) << scene.name;
    fewest_supported =
        std::min(fewest_supported, static_cast<double>(r.support.size()) / reported.inliers);
    const GstKeypointsMeta* keypoints = gst_buffer_get_keypoints_meta(out);
    ASSERT_NE(keypoints, nullptr);
    for (guint32 index : r.support) {
      ASSERT_LT(index, keypoints->n_keypoints);
      const GstKeypoint& k = keypoints->keypoints[index];
      EXPECT_GE(k.x, r.x - 3.0f);
      EXPECT_LE(k.x, r.x + r.w - 1 + 3.0f);
      EXPECT_GE(k.y, r.y - 3.0f);
      EXPECT_LE(k.y, r.y + r.h - 1 + 3.0f);
    }
    gst_buffer_unref(out);
  }
  std::printf(
      "analytics: worst box error against the corners' bounds %.3f px; fewest distinct "
      "supporting keypoints per inlier %.3f\n",
      worst_box_error, fewest_supported);
  teardown_harness(h);
}

// A clip: found, found, found, not there, found, found. One id for the first three frames, a new
// one after the loss, each with its own first-seen time.
TEST(KeypointMatcherAnalytics, TheTrackingIdHoldsWhileFoundAndChangesAfterALoss) {
  const std::vector<ObjectScene> scenes = positive_scenes();
  const cv::Mat without = negative_scenes(1)[0].bgr;
  GstHarness* h = find_harness("");
  const std::vector<int> clip = {0, 5, 10, -1, 3, 7};
  const std::vector<guint64> ids = {1, 1, 1, 0, 2, 2};
  const std::vector<GstClockTime> first_seen = {
      0, 0, 0, 0, 4 * 40 * GST_MSECOND, 4 * 40 * GST_MSECOND};
  for (size_t f = 0; f < clip.size(); ++f) {
    GstBuffer* out = push_at(h, clip[f] < 0 ? without : scenes[static_cast<size_t>(clip[f])].bgr,
                             static_cast<int>(f));
    ASSERT_NE(out, nullptr);
    const Results r = read_results(out);
    if (ids[f] == 0) {
      EXPECT_EQ(r.detections, 0) << "frame " << f;
      EXPECT_EQ(gst_buffer_get_analytics_relation_meta(out), nullptr);
    } else {
      ASSERT_TRUE(r.tracked) << "frame " << f;
      EXPECT_EQ(r.track_id, ids[f]) << "frame " << f;
      EXPECT_EQ(r.first_seen, first_seen[f]) << "frame " << f;
      EXPECT_EQ(r.last_seen, GST_BUFFER_PTS(out)) << "frame " << f;
    }
    gst_buffer_unref(out);
  }
  teardown_harness(h);
}

// analytics=false: our own metas only; set again between frames, it applies from the next one.
TEST(KeypointMatcherAnalytics, ThePropertySwitchesTheResultsAtAFrameBoundary) {
  const cv::Mat scene = positive_scenes()[1].bgr;
  GstHarness* h = find_harness("analytics=false");
  GstElement* matcher = gst_harness_find_element(h, "keypointmatcher");
  ASSERT_NE(matcher, nullptr);
  const std::vector<bool> setting = {false, true, true, false, true};
  for (size_t f = 0; f < setting.size(); ++f) {
    g_object_set(matcher, "analytics", setting[f] ? TRUE : FALSE, nullptr);
    GstBuffer* out = push_at(h, scene, static_cast<int>(f));
    ASSERT_NE(out, nullptr);
    EXPECT_NE(gst_buffer_get_keypoints_object_meta(out), nullptr) << "frame " << f;
    EXPECT_EQ(gst_buffer_get_analytics_relation_meta(out) != nullptr, setting[f]) << "frame " << f;
    gst_buffer_unref(out);
  }
  gst_object_unref(matcher);
  teardown_harness(h);
}

// Upstream's overlay draws what the matcher found: with labels off and a red outline, the pixels
// it changes lie along the box (within 3 px of its edges) and cover most of its outline.
TEST(KeypointMatcherAnalytics, ObjectDetectionOverlayDrawsTheBox) {
  GstElement* overlay = gst_element_factory_make("objectdetectionoverlay", nullptr);
  ASSERT_NE(overlay, nullptr) << "objectdetectionoverlay (gst-plugins-bad, analyticsoverlay) is "
                                 "missing: the Debian 13 stage installs it";
  gst_object_unref(overlay);
  GstHarness* h = find_harness(
      "! videoconvert ! capsfilter caps=video/x-raw,format=BGRx ! objectdetectionoverlay "
      "draw-labels=false object-detection-outline-color=0xffff0000 ! videoconvert ! "
      "capsfilter caps=video/x-raw,format=BGR");
  const ObjectScene scene = positive_scenes()[4];
  GstBuffer* out = push_at(h, scene.bgr, 0);
  ASSERT_NE(out, nullptr);
  const Results r = read_results(out);
  ASSERT_EQ(r.detections, 1);
  GstMapInfo map;
  ASSERT_TRUE(gst_buffer_map(out, &map, GST_MAP_READ));
  const cv::Mat drawn(kSceneSize, CV_8UC3, map.data);
  int changed = 0, far = 0;
  for (int y = 0; y < drawn.rows; ++y)
    for (int x = 0; x < drawn.cols; ++x) {
      const cv::Vec3b a = drawn.at<cv::Vec3b>(y, x), b = scene.bgr.at<cv::Vec3b>(y, x);
      if (cv::norm(cv::Vec3i(a) - cv::Vec3i(b), cv::NORM_INF) <= 8)
        continue;
      ++changed;
      const int dx = std::max({r.x - x, x - (r.x + r.w - 1), 0});
      const int dy = std::max({r.y - y, y - (r.y + r.h - 1), 0});
      const bool inside_far = x > r.x + 3 && x < r.x + r.w - 4 && y > r.y + 3 && y < r.y + r.h - 4;
      if (dx > 3 || dy > 3 || inside_far)
        ++far;
    }
  // The outline's pixels: how many of the box's edge pixels changed.
  int edge = 0, edge_changed = 0;
  auto count_edge = [&](int x, int y) {
    if (x < 0 || y < 0 || x >= drawn.cols || y >= drawn.rows)
      return;
    ++edge;
    bool near_change = false;
    for (int v = -2; v <= 2 && !near_change; ++v)
      for (int u = -2; u <= 2 && !near_change; ++u) {
        const int xx = std::clamp(x + u, 0, drawn.cols - 1),
                  yy = std::clamp(y + v, 0, drawn.rows - 1);
        near_change = cv::norm(cv::Vec3i(drawn.at<cv::Vec3b>(yy, xx)) -
                                   cv::Vec3i(scene.bgr.at<cv::Vec3b>(yy, xx)),
                               cv::NORM_INF) > 8;
      }
    edge_changed += near_change;
  };
  for (int x = r.x; x < r.x + r.w; ++x) {
    count_edge(x, r.y);
    count_edge(x, r.y + r.h - 1);
  }
  for (int y = r.y; y < r.y + r.h; ++y) {
    count_edge(r.x, y);
    count_edge(r.x + r.w - 1, y);
  }
  gst_buffer_unmap(out, &map);
  std::printf(
      "objectdetectionoverlay: box %d,%d %dx%d; %d pixels changed, %d far from the box; "
      "%d of %d outline pixels drawn\n",
      r.x, r.y, r.w, r.h, changed, far, edge_changed, edge);
  EXPECT_EQ(far, 0);
  EXPECT_GE(edge_changed, edge * 95 / 100);
  gst_buffer_unref(out);
  teardown_harness(h);
}

// The support result alone: what is added reads back; other results are not mistaken for it;
// copies and scales keep it, as they keep the keypoints it points into.
TEST(KeypointsSupportMtd, AddReadAndTransforms) {
  GstBuffer* buffer = gst_buffer_new();
  GstAnalyticsRelationMeta* meta = gst_buffer_add_analytics_relation_meta(buffer);
  const guint32 indices[] = {7, 3, 11};
  GstKeypointsSupportMtd support;
  ASSERT_TRUE(gst_keypoints_support_mtd_add(meta, indices, 3, &support));
  GstKeypointsSupportMtd empty;
  ASSERT_TRUE(gst_keypoints_support_mtd_add(meta, nullptr, 0, &empty));
  GstAnalyticsODMtd od;
  ASSERT_TRUE(gst_analytics_relation_meta_add_od_mtd(meta, g_quark_from_string("x"), 1, 2, 3, 4,
                                                     0.5f, &od));
  guint n = 99;
  const guint32* read = gst_keypoints_support_mtd_get_indices(&support, &n);
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(std::vector<guint32>(read, read + n), std::vector<guint32>({7, 3, 11}));
  EXPECT_NE(gst_keypoints_support_mtd_get_indices(&empty, &n), nullptr);
  EXPECT_EQ(n, 0u);
  EXPECT_EQ(gst_keypoints_support_mtd_get_indices(reinterpret_cast<GstAnalyticsMtd*>(&od), &n),
            nullptr);
  EXPECT_EQ(n, 0u);
  GstKeypointsSupportMtd related;
  EXPECT_FALSE(gst_keypoints_support_mtd_get_related(meta, od.id, &related));

  GstBuffer* copy = gst_buffer_copy(buffer);
  GstAnalyticsRelationMeta* copied = gst_buffer_get_analytics_relation_meta(copy);
  ASSERT_NE(copied, nullptr);
  GstAnalyticsMtd found;
  ASSERT_TRUE(gst_analytics_relation_meta_get_mtd(
      copied, support.id, gst_keypoints_support_mtd_get_mtd_type(), &found));
  read = gst_keypoints_support_mtd_get_indices(&found, &n);
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(std::vector<guint32>(read, read + n), std::vector<guint32>({7, 3, 11}));
  gst_buffer_unref(copy);
  gst_buffer_unref(buffer);
}

}  // namespace
}  // namespace gpusift::testing
