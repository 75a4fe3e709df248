/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The properties both results sinks share (keypointjsonsink, keypointmqttsink), declared once:
 * the stream's id and what the JSON includes beyond the summary. */
#pragma once

#include <gst/gst.h>

#include <string>

#include "base/property_field.h"
#include "results_serializer.h"

namespace gpusift::results {

struct ResultsSettings {
  std::string stream_id;  // empty: the element's name
  bool include_tracks = false;
  bool include_keypoints = false;

  // The options of one frame; @element names the stream when stream-id is empty.
  ResultsOptions options(GstObject* element) const {
    ResultsOptions o;
    o.stream_id = stream_id.empty() ? std::string(GST_OBJECT_NAME(element)) : stream_id;
    o.include_tracks = include_tracks;
    o.include_keypoints = include_keypoints;
    return o;
  }
};

// Installs stream-id, include-tracks and include-keypoints as properties first_id, first_id + 1
// and first_id + 2 of a sink whose settings S hold a ResultsSettings `results`.
template <typename S>
void install_results_properties(GObjectClass* klass, gpusift::gst::PropertyTable<S>* table,
                                guint first_id) {
  table->install(
      klass, first_id,
      g_param_spec_string("stream-id", "Stream id",
                          "Names the stream in every JSON object (and the MQTT topic); empty: the "
                          "element's name",
                          "", gpusift::gst::kReadyOnly),
      [](S& s) { return gpusift::gst::PropertyField(&s.results.stream_id); });
  table->install(klass, first_id + 1,
                 g_param_spec_boolean("include-tracks", "Include tracks",
                                      "List each track's id, age and position (its keypoint's) "
                                      "besides the track counts",
                                      FALSE, gpusift::gst::kMutablePlaying),
                 [](S& s) { return gpusift::gst::PropertyField(&s.results.include_tracks); });
  table->install(klass, first_id + 2,
                 g_param_spec_boolean("include-keypoints", "Include keypoints",
                                      "List every keypoint (position, size, angle, response, "
                                      "octave, class id; no descriptors)",
                                      FALSE, gpusift::gst::kMutablePlaying),
                 [](S& s) { return gpusift::gst::PropertyField(&s.results.include_keypoints); });
}

}  // namespace gpusift::results
