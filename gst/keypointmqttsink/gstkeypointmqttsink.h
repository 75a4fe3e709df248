/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* keypointmqttsink: every buffer's results JSON (docs/results-json.md) published to an MQTT
 * broker. */
#pragma once

#include <gst/base/gstbasesink.h>
#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_KEYPOINT_MQTT_SINK (gst_keypoint_mqtt_sink_get_type())
G_DECLARE_FINAL_TYPE(GstKeypointMqttSink, gst_keypoint_mqtt_sink, GST, KEYPOINT_MQTT_SINK,
                     GstBaseSink)

GST_ELEMENT_REGISTER_DECLARE(keypointmqttsink);

G_END_DECLS
