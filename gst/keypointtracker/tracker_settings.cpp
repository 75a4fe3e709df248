// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tracker_settings.h"

#include <gst/gst.h>
#include <gst/keypoints/gstkeypointstracksmeta.h>

#include "base/property_field.h"
#include "base/static_enum.h"

namespace gpusift::gst {

namespace {

// The element class's properties, each with the field that holds it.
PropertyTable<TrackerSettings>& tracker_properties() {
  static PropertyTable<TrackerSettings> table;
  return table;
}

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
  return static_enum_type<GstKeypointMotionModel>(
      "GstKeypointTrackerMotionModel",
      {
          {GST_KEYPOINT_MOTION_MODEL_NONE, "No motion: matches only", "none"},
          {GST_KEYPOINT_MOTION_MODEL_TRANSLATION, "Translation (2 degrees of freedom)",
           "translation"},
          {GST_KEYPOINT_MOTION_MODEL_SIMILARITY, "Rotation, uniform scale, translation (4)",
           "similarity"},
          {GST_KEYPOINT_MOTION_MODEL_AFFINE, "Affine (6)", "affine"},
          {GST_KEYPOINT_MOTION_MODEL_HOMOGRAPHY, "Homography (8)", "homography"},
      });
}

constexpr int kMaxMissed = 1000;
constexpr int kMaxKeyframeInterval = 1000000;

void install_matching_properties(GObjectClass* klass, const tracking::TrackerParams& d) {
  tracker_properties().install(
      klass, kTrackerPropRatio,
      ratio_param_spec("Lowe's ratio test: a match is kept when its distance is below ratio "
                       "times the second nearest's",
                       d.match.ratio),
      [](TrackerSettings& s) { return PropertyField(&s.params.match.ratio); });
  tracker_properties().install(
      klass, kTrackerPropCrossCheck,
      g_param_spec_boolean("cross-check", "Cross check", "Keep only mutual nearest neighbours",
                           d.match.cross_check, kMutablePlaying),
      [](TrackerSettings& s) { return PropertyField(&s.params.match.cross_check); });
  tracker_properties().install(
      klass, kTrackerPropMotionModel,
      g_param_spec_enum("motion-model", "Motion model",
                        "Camera motion fitted to the matches by RANSAC; with a model, only its "
                        "inliers continue tracks",
                        motion_model_enum_type(), static_cast<gint>(d.model), kMutablePlaying),
      [](TrackerSettings& s) { return PropertyField(&s.params.model); });
  tracker_properties().install(
      klass, kTrackerPropRansacThreshold, ransac_threshold_param_spec(d.ransac_threshold),
      [](TrackerSettings& s) { return PropertyField(&s.params.ransac_threshold); });
  tracker_properties().install(
      klass, kTrackerPropMaxMissed,
      g_param_spec_int("max-missed", "Max missed",
                       "Frames a track survives without a match before it ends", 0, kMaxMissed,
                       d.max_missed, kMutablePlaying),
      [](TrackerSettings& s) { return PropertyField(&s.params.max_missed); });
  tracker_properties().install(
      klass, kTrackerPropKeyframeInterval,
      g_param_spec_int("keyframe-interval", "Keyframe interval",
                       "Every N-th frame becomes a keyframe that later frames are also matched "
                       "to, for a cumulative motion with less drift (0: off)",
                       0, kMaxKeyframeInterval, d.keyframe_interval, kMutablePlaying),
      [](TrackerSettings& s) { return PropertyField(&s.params.keyframe_interval); });
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
  tracker_properties().set(s, id, value);
}

void get_tracker_property(const TrackerSettings& s, guint id, GValue* value) {
  tracker_properties().get(s, id, value);
}

int frames_in_flight_for(int setting, Backend backend, bool upstream_live) {
  if (setting > 0)
    return setting;
  return backend == Backend::kCuda && !upstream_live ? 2 : 1;
}

}  // namespace gpusift::gst
