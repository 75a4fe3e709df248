// SPDX-License-Identifier: LGPL-2.1-or-later
// Shared by the keypointtracker and keypointmatcher suites: a harness around the element, its bus,
// synthetic frames whose keypoints move by a known motion, and the leaks tracer's count of live
// objects.
#pragma once

#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/keypoints/gstkeypointstracksmeta.h>

#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "gst_test_support.h"

namespace gpusift::testing {

// An element (or "a ! b" description) as the harness's element, with properties "name=value
// ..." set before it starts, and a bus so that its messages can be read.
GstHarness* element_harness(const std::string& factory, const std::string& properties = "");
// Drops the messages still queued on the bus (they hold the element) and tears down.
void teardown_harness(GstHarness* h);
// Messages of `type` the harness's element posted so far (owned by the caller).
std::vector<GstMessage*> bus_messages(GstHarness* h, GstMessageType type);
void unref_all(std::vector<GstMessage*>* messages);

// Random points with random unit descriptors: distinct enough for any ratio test.
struct SyntheticScene {
  std::vector<cv::Point2f> points;
  std::vector<float> descriptors;  // points.size() rows of 128
};
SyntheticScene random_scene(int count, cv::Size area, unsigned seed);

// The keypoints of `scene` moved by `motion` (with `noise` px of uniform jitter), in the order
// of `order` (indices into the scene; all of them when empty).
struct SyntheticFrame {
  std::vector<GstKeypoint> keypoints;
  std::vector<float> descriptors;
  std::vector<int> scene_index;  // per keypoint
};
SyntheticFrame synthetic_frame(const SyntheticScene& scene, const cv::Matx33d& motion, float noise,
                               unsigned seed, const std::vector<int>& order = {});

// A GRAY8 frame of `size` carrying the frame as GstKeypointsMeta (float descriptors).
GstBuffer* buffer_with_keypoints(const SyntheticFrame& frame, cv::Size size);

// Pushes and pulls one buffer; nullptr when the push fails.
GstBuffer* push_and_pull(GstHarness* h, GstBuffer* buffer);

// The last "keypointmatcher" element message's fields (all zero when none was posted).
struct MatcherReport {
  bool found = false;
  guint matches = 0;
  guint inliers = 0;
  std::string reason;
  std::vector<double> corners;  // x0, y0, ... x3, y3 when found
};
MatcherReport last_matcher_report(GstHarness* h);

cv::Matx33d matrix_of(const gdouble* row_major);
// The largest distance between the images of the frame's corners under a and b.
double corner_error(const cv::Matx33d& a, const cv::Matx33d& b, cv::Size frame);
double median_corner_error(const cv::Matx33d& a, const cv::Matx33d& b, cv::Size frame);

// Live objects of a type by name through the leaks tracer (gst_test_main switches it on).
using gst_test::live_objects_named;

}  // namespace gpusift::testing
