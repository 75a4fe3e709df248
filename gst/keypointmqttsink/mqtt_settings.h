/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* keypointmqttsink's properties and the settings that hold them. */
#pragma once

#include <gst/gst.h>

#include <string>

#include "base/property_field.h"
#include "mqtt_client.h"
#include "results/results_properties.h"

namespace gpusift::mqtt {

struct MqttSinkSettings {
  ClientOptions client;
  std::string topic;  // empty: gpusift/<stream-id>/results
  int stats_interval_ms = 1000;
  int flush_timeout_ms = 5000;
  results::ResultsSettings results;

  std::string topic_for(const std::string& stream_id) const {
    return topic.empty() ? "gpusift/" + stream_id + "/results" : topic;
  }
};

void install_mqtt_sink_properties(GObjectClass* klass,
                                  gpusift::gst::PropertyTable<MqttSinkSettings>* table);

// The id of the read-only stats property, which the element answers itself.
inline constexpr guint kStatsPropertyId = 1;

}  // namespace gpusift::mqtt
