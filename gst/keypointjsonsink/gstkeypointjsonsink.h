/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* keypointjsonsink: one line of results JSON per buffer (docs/results-json.md) to a file or
 * stdout. */
#pragma once

#include <gst/base/gstbasesink.h>
#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_KEYPOINT_JSON_SINK (gst_keypoint_json_sink_get_type())
G_DECLARE_FINAL_TYPE(GstKeypointJsonSink, gst_keypoint_json_sink, GST, KEYPOINT_JSON_SINK,
                     GstBaseSink)

GST_ELEMENT_REGISTER_DECLARE(keypointjsonsink);

G_END_DECLS
