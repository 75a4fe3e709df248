// SPDX-License-Identifier: LGPL-2.1-or-later
#include "matcher_settings.h"

#include <gst/gst.h>

#include "base/property_field.h"

namespace gpusift::gst {

namespace {

// The element class's properties, each with the field that holds it.
PropertyTable<MatcherSettings>& matcher_properties() {
  static PropertyTable<MatcherSettings> table;
  return table;
}

constexpr int kMaxMinInliers = 100000;
constexpr int kMaxRansacIterations = 1000000;

void install_finder_properties(GObjectClass* klass, const objects::FinderParams& d) {
  matcher_properties().install(
      klass, kMatcherPropMinInliers,
      g_param_spec_int("min-inliers", "Minimum inliers",
                       "Matches that must agree with the homography for the object to be found", 4,
                       kMaxMinInliers, d.min_inliers, kMutablePlaying),
      [](MatcherSettings& s) { return PropertyField(&s.params.min_inliers); });
  matcher_properties().install(
      klass, kMatcherPropRatio,
      ratio_param_spec("Lowe's ratio test: a reference keypoint's match is kept when its "
                       "distance is below ratio times the second nearest frame keypoint's",
                       d.match.ratio),
      [](MatcherSettings& s) { return PropertyField(&s.params.match.ratio); });
  matcher_properties().install(
      klass, kMatcherPropRansacThreshold, ransac_threshold_param_spec(d.ransac_threshold),
      [](MatcherSettings& s) { return PropertyField(&s.params.ransac_threshold); });
  matcher_properties().install(
      klass, kMatcherPropRansacIterations,
      g_param_spec_int("ransac-iterations", "RANSAC iterations",
                       "Homographies tried per frame, each from four matches", 1,
                       kMaxRansacIterations, d.ransac_iterations, kMutablePlaying),
      [](MatcherSettings& s) { return PropertyField(&s.params.ransac_iterations); });
}

}  // namespace

void install_matcher_properties(GObjectClass* klass) {
  matcher_properties().install(
      klass, kMatcherPropReference,
      g_param_spec_string("reference", "Reference",
                          "The object to find: an image file (any format GStreamer decodes) or a "
                          "features file from keypointfilesink or gpusift-extract",
                          nullptr, kReadyOnly),
      [](MatcherSettings& s) { return PropertyField(&s.reference); });
  matcher_properties().install(
      klass, kMatcherPropLabel,
      g_param_spec_string("label", "Label",
                          "The object's name: the type of its region of interest and the label "
                          "of its GstKeypointsObjectMeta (empty: \"object\")",
                          kDefaultObjectLabel, kMutablePlaying),
      [](MatcherSettings& s) { return PropertyField(&s.label); });
  install_finder_properties(klass, objects::FinderParams{});
  matcher_properties().install(
      klass, kMatcherPropAnalytics,
      g_param_spec_boolean(
          "analytics", "Analytics results",
          "Also attach each found object as GStreamer analytics results (an object-detection "
          "result, a tracking result and the keypoints that support it, in a "
          "GstAnalyticsRelationMeta); only in builds against GStreamer 1.24 and newer with its "
          "analytics library, elsewhere it has no effect",
          MatcherSettings{}.analytics, kMutablePlaying),
      [](MatcherSettings& s) { return PropertyField(&s.analytics); });
}

void set_matcher_property(MatcherSettings* s, guint id, const GValue* value) {
  matcher_properties().set(s, id, value);
  if (id == kMatcherPropLabel && s->label.empty())
    s->label = kDefaultObjectLabel;  // an empty label would make an ROI without a type
}

void get_matcher_property(const MatcherSettings& s, guint id, GValue* value) {
  if (id == kMatcherPropReference && s.reference.empty())
    g_value_set_string(value, nullptr);
  else
    matcher_properties().get(s, id, value);
}

}  // namespace gpusift::gst
