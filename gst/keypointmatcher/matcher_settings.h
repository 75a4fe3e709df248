/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* keypointmatcher's property values and their GParamSpecs, apart from the element's plumbing. */
#pragma once

#include <glib-object.h>

#include <string>

#include "gpusift/extractor.h"
#include "gpusift/object_finding.h"

namespace gpusift::gst {

inline constexpr const char* kDefaultObjectLabel = "object";

// The matcher's own properties; backend, cuda-device-id and post-messages are the base class's.
struct MatcherSettings {
  std::string reference;
  std::string label = kDefaultObjectLabel;
  objects::FinderParams params;
  // Found objects also as GStreamer analytics results (builds against GStreamer 1.24 and newer
  // with its analytics library; elsewhere the property exists and changes nothing).
  bool analytics = true;
};

enum MatcherProperty {
  kMatcherPropReference = 1,
  kMatcherPropLabel,
  kMatcherPropMinInliers,
  kMatcherPropRatio,
  kMatcherPropRansacThreshold,
  kMatcherPropRansacIterations,
  kMatcherPropAnalytics,
};

void install_matcher_properties(GObjectClass* klass);
void set_matcher_property(MatcherSettings* settings, guint id, const GValue* value);
void get_matcher_property(const MatcherSettings& settings, guint id, GValue* value);

}  // namespace gpusift::gst
