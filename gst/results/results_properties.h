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

namespace gpusift::results {

// The house rule for the sinks' properties, as GstKeypointBaseTransform applies it: a property
// flagged GST_PARAM_MUTABLE_READY may change in NULL and READY, one flagged
// GST_PARAM_MUTABLE_PLAYING at any time, one without either only in NULL (what the sink reads when
// it opens its output, at NULL to READY). Set at another time, it is refused with a warning and
// keeps its value: FALSE then.
inline bool property_settable_now(GstElement* element, GParamSpec* pspec) {
  GstState latest = GST_STATE_NULL;
  if (pspec->flags & (GST_PARAM_MUTABLE_PLAYING | GST_PARAM_MUTABLE_PAUSED))
    latest = GST_STATE_PLAYING;
  else if (pspec->flags & GST_PARAM_MUTABLE_READY)
    latest = GST_STATE_READY;
  GST_OBJECT_LOCK(element);
  // Between NULL and READY the output is being opened with the values of now.
  GstState state = GST_STATE(element);
  if (GST_STATE_PENDING(element) > state)
    state = GST_STATE_PENDING(element);
  gchar* name = g_strdup(GST_OBJECT_NAME(element));
  GST_OBJECT_UNLOCK(element);
  const bool settable = state <= latest;
  if (!settable) {
    g_warning("%s: %s can change only in the %s state, not in %s; it keeps its value", name,
              pspec->name, latest == GST_STATE_NULL ? "NULL" : "NULL or READY",
              gst_element_state_get_name(state));
  }
  g_free(name);
  return settable;
}

}  // namespace gpusift::results
