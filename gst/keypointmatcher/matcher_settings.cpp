// SPDX-License-Identifier: LGPL-2.1-or-later
#include "matcher_settings.h"

#include <gst/gst.h>

namespace gpusift::gst {

namespace {

constexpr GParamFlags kAnyState = static_cast<GParamFlags>(
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
constexpr GParamFlags kReadyOnly =
    static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

constexpr double kMinRatio = 0.01;  // the matcher refuses 0
constexpr int kMaxMinInliers = 100000;
constexpr int kMaxRansacIterations = 1000000;

void install_finder_properties(GObjectClass* klass, const objects::FinderParams& d) {
  g_object_class_install_property(
      klass, kMatcherPropMinInliers,
      g_param_spec_int("min-inliers", "Minimum inliers",
                       "Matches that must agree with the homography for the object to be found", 4,
                       kMaxMinInliers, d.min_inliers, kAnyState));
  g_object_class_install_property(
      klass, kMatcherPropRatio,
      g_param_spec_double("ratio", "Ratio",
                          "Lowe's ratio test: a reference keypoint's match is kept when its "
                          "distance is below ratio times the second nearest frame keypoint's",
                          kMinRatio, 1.0, d.match.ratio, kAnyState));
  g_object_class_install_property(
      klass, kMatcherPropRansacThreshold,
      g_param_spec_double("ransac-threshold", "RANSAC threshold",
                          "Largest reprojection error of an inlier, in pixels", 0.01, 1000.0,
                          d.ransac_threshold, kAnyState));
  g_object_class_install_property(
      klass, kMatcherPropRansacIterations,
      g_param_spec_int("ransac-iterations", "RANSAC iterations",
                       "Homographies tried per frame, each from four matches", 1,
                       kMaxRansacIterations, d.ransac_iterations, kAnyState));
}

// An empty label would make an ROI without a type.
std::string label_or_default(const char* label) {
  return label && *label ? label : kDefaultObjectLabel;
}

}  // namespace

void install_matcher_properties(GObjectClass* klass) {
  g_object_class_install_property(
      klass, kMatcherPropReference,
      g_param_spec_string("reference", "Reference",
                          "The object to find: an image file (any format GStreamer decodes) or a "
                          "features file from keypointfilesink or gpusift-extract",
                          nullptr, kReadyOnly));
  g_object_class_install_property(
      klass, kMatcherPropLabel,
      g_param_spec_string("label", "Label",
                          "The object's name: the type of its region of interest and the label "
                          "of its GstKeypointObjectMeta (empty: \"object\")",
                          kDefaultObjectLabel, kAnyState));
  install_finder_properties(klass, objects::FinderParams{});
}

void set_matcher_property(MatcherSettings* s, guint id, const GValue* value) {
  objects::FinderParams& p = s->params;
  switch (id) {
    case kMatcherPropReference: {
      const char* reference = g_value_get_string(value);
      s->reference = reference ? reference : "";
      break;
    }
    case kMatcherPropLabel:
      s->label = label_or_default(g_value_get_string(value));
      break;
    case kMatcherPropMinInliers:
      p.min_inliers = g_value_get_int(value);
      break;
    case kMatcherPropRatio:
      p.match.ratio = static_cast<float>(g_value_get_double(value));
      break;
    case kMatcherPropRansacThreshold:
      p.ransac_threshold = static_cast<float>(g_value_get_double(value));
      break;
    case kMatcherPropRansacIterations:
      p.ransac_iterations = g_value_get_int(value);
      break;
  }
}

void get_matcher_property(const MatcherSettings& s, guint id, GValue* value) {
  const objects::FinderParams& p = s.params;
  switch (id) {
    case kMatcherPropReference:
      g_value_set_string(value, s.reference.empty() ? nullptr : s.reference.c_str());
      break;
    case kMatcherPropLabel:
      g_value_set_string(value, s.label.c_str());
      break;
    case kMatcherPropMinInliers:
      g_value_set_int(value, p.min_inliers);
      break;
    case kMatcherPropRatio:
      g_value_set_double(value, p.match.ratio);
      break;
    case kMatcherPropRansacThreshold:
      g_value_set_double(value, p.ransac_threshold);
      break;
    case kMatcherPropRansacIterations:
      g_value_set_int(value, p.ransac_iterations);
      break;
  }
}

}  // namespace gpusift::gst
