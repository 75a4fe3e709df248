// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tracker_settings.h"

#include <gst/gst.h>
#include <gst/keypoints/gstkeypointtracksmeta.h>

#include "base/static_enum.h"

namespace gpusift::gst {

namespace {

// The property's values are the meta's, so that applications read one set of numbers.
static_assert(static_cast<int>(MotionModel::kNone) == GST_KEYPOINT_MOTION_MODEL_NONE, "");
static_assert(static_cast<int>(MotionModel::kTranslation) == GST_KEYPOINT_MOTION_MODEL_TRANSLATION,
              "");
static_assert(static_cast<int>(MotionModel::kSimilarity) == GST_KEYPOINT_MOTION_MODEL_SIMILARITY,
              "");
static_assert(static_cast<int>(MotionModel::kAffine) == GST_KEYPOINT_MOTION_MODEL_AFFINE, "");
static_assert(static_cast<int>(MotionModel::kHomography) == GST_KEYPOINT_MOTION_MODEL_HOMOGRAPHY,
              "");

GType motion_model_enum_type() {
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_KEYPOINT_MOTION_MODEL_NONE, "No motion: matches only", "none"},
      {GST_KEYPOINT_MOTION_MODEL_TRANSLATION, "Translation (2 degrees of freedom)", "translation"},
      {GST_KEYPOINT_MOTION_MODEL_SIMILARITY, "Rotation, uniform scale, translation (4)",
       "similarity"},
      {GST_KEYPOINT_MOTION_MODEL_AFFINE, "Affine (6)", "affine"},
      {GST_KEYPOINT_MOTION_MODEL_HOMOGRAPHY, "Homography (8)", "homography"},
      {0, nullptr, nullptr},
  };
  return static_enum_type(&type, "GstKeypointTrackerMotionModel", values);
}

constexpr GParamFlags kAnyState = static_cast<GParamFlags>(
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);

constexpr double kMinRatio = 0.01;  // the matcher refuses 0
constexpr int kMaxMissed = 1000;
constexpr int kMaxKeyframeInterval = 1000000;

void install_matching_properties(GObjectClass* klass, const tracking::TrackerParams& d) {
  g_object_class_install_property(
      klass, kTrackerPropRatio,
      g_param_spec_double("ratio", "Ratio",
                          "Lowe's ratio test: a match is kept when its distance is below ratio "
                          "times the second nearest's",
                          kMinRatio, 1.0, d.match.ratio, kAnyState));
  g_object_class_install_property(
      klass, kTrackerPropCrossCheck,
      g_param_spec_boolean("cross-check", "Cross check", "Keep only mutual nearest neighbours",
                           d.match.cross_check, kAnyState));
  g_object_class_install_property(
      klass, kTrackerPropMotionModel,
      g_param_spec_enum("motion-model", "Motion model",
                        "Camera motion fitted to the matches by RANSAC; with a model, only its "
                        "inliers continue tracks",
                        motion_model_enum_type(), static_cast<gint>(d.model), kAnyState));
  g_object_class_install_property(
      klass, kTrackerPropRansacThreshold,
      g_param_spec_double("ransac-threshold", "RANSAC threshold",
                          "Largest reprojection error of an inlier, in pixels", 0.01, 1000.0,
                          d.ransac_threshold, kAnyState));
  g_object_class_install_property(
      klass, kTrackerPropMaxMissed,
      g_param_spec_int("max-missed", "Max missed",
                       "Frames a track survives without a match before it ends", 0, kMaxMissed,
                       d.max_missed, kAnyState));
  g_object_class_install_property(
      klass, kTrackerPropKeyframeInterval,
      g_param_spec_int("keyframe-interval", "Keyframe interval",
                       "Every N-th frame becomes a keyframe that later frames are also matched "
                       "to, for a cumulative motion with less drift (0: off)",
                       0, kMaxKeyframeInterval, d.keyframe_interval, kAnyState));
}

}  // namespace

const char* const kTrackerFramesInFlightBlurb =
    "1: each frame leaves once it is tracked. 2: a frame is tracked on a worker thread while "
    "upstream makes the next one, and leaves one frame later (more throughput, one frame more "
    "latency). 0: auto, 2 on the GPU backend when upstream is not live, else 1";

void install_tracker_properties(GObjectClass* klass) {
  install_matching_properties(klass, tracking::TrackerParams{});
}

void set_tracker_property(TrackerSettings* s, guint id, const GValue* value) {
  tracking::TrackerParams& p = s->params;
  switch (id) {
    case kTrackerPropRatio:
      p.match.ratio = static_cast<float>(g_value_get_double(value));
      break;
    case kTrackerPropCrossCheck:
      p.match.cross_check = g_value_get_boolean(value);
      break;
    case kTrackerPropMotionModel:
      p.model = static_cast<MotionModel>(g_value_get_enum(value));
      break;
    case kTrackerPropRansacThreshold:
      p.ransac_threshold = static_cast<float>(g_value_get_double(value));
      break;
    case kTrackerPropMaxMissed:
      p.max_missed = g_value_get_int(value);
      break;
    case kTrackerPropKeyframeInterval:
      p.keyframe_interval = g_value_get_int(value);
      break;
  }
}

int frames_in_flight_for(int setting, Backend backend, bool upstream_live) {
  if (setting > 0)
    return setting;
  return backend == Backend::kCuda && !upstream_live ? 2 : 1;
}

void get_tracker_property(const TrackerSettings& s, guint id, GValue* value) {
  const tracking::TrackerParams& p = s.params;
  switch (id) {
    case kTrackerPropRatio:
      g_value_set_double(value, p.match.ratio);
      break;
    case kTrackerPropCrossCheck:
      g_value_set_boolean(value, p.match.cross_check);
      break;
    case kTrackerPropMotionModel:
      g_value_set_enum(value, static_cast<gint>(p.model));
      break;
    case kTrackerPropRansacThreshold:
      g_value_set_double(value, p.ransac_threshold);
      break;
    case kTrackerPropMaxMissed:
      g_value_set_int(value, p.max_missed);
      break;
    case kTrackerPropKeyframeInterval:
      g_value_set_int(value, p.keyframe_interval);
      break;
  }
}

}  // namespace gpusift::gst
