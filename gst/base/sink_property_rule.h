/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The house rule for properties, for the sinks (keypointjsonsink, keypointmqttsink), which are
 * not GstKeypointBaseTransforms: a property flagged GST_PARAM_MUTABLE_READY may change in NULL and
 * READY, one flagged GST_PARAM_MUTABLE_PLAYING at any time, one without either only in NULL (what
 * a sink reads when it opens its output or connects, at NULL to READY). Set at another time, it is
 * refused with a warning and keeps its value, as GstKeypointBaseTransform does. */
#pragma once

#include <gst/gst.h>

namespace gpusift::gst {

// TRUE when @pspec may be set now; FALSE, after a warning, when it may not.
inline bool sink_property_settable_now(GstElement* element, GParamSpec* pspec) {
  GstState latest = GST_STATE_NULL;
  if (pspec->flags & (GST_PARAM_MUTABLE_PLAYING | GST_PARAM_MUTABLE_PAUSED))
    latest = GST_STATE_PLAYING;
  else if (pspec->flags & GST_PARAM_MUTABLE_READY)
    latest = GST_STATE_READY;
  GST_OBJECT_LOCK(element);
  // Between NULL and READY the output is being opened with the values of now: the state being
  // entered counts.
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

}  // namespace gpusift::gst
