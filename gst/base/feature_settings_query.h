/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The "gpusift-feature-settings" query: an element that needs features comparable to the
 * stream's (keypointmatcher computing its reference's) asks upstream; gpusiftfilter answers with
 * its method and extraction parameters. A custom, non-serialised query, so that every element in
 * between forwards it. */
#pragma once

#include <gst/gst.h>

#include "gpusift/method.h"

namespace gpusift::gst {

inline constexpr const char* kFeatureSettingsQueryName = "gpusift-feature-settings";

// A new, unanswered query (owned by the caller).
GstQuery* feature_settings_query_new();
bool is_feature_settings_query(GstQuery* query);
// Writes the settings into the query's structure; the query must be writable (as it is in a
// pad's query function).
void answer_feature_settings_query(GstQuery* query, const FeatureConfig& config);
// The answered settings; false when nobody answered (fields missing or malformed).
bool parse_feature_settings_query(GstQuery* query, FeatureConfig* config);

}  // namespace gpusift::gst
