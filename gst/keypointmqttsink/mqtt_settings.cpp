// SPDX-License-Identifier: LGPL-2.1-or-later
#include "mqtt_settings.h"

namespace gpusift::mqtt {

namespace {

using gpusift::gst::kMutablePlaying;
using gpusift::gst::kReadyOnly;
using gpusift::gst::PropertyField;

enum {
  PROP_0,
  PROP_STATS = kStatsPropertyId,
  PROP_HOST,
  PROP_PORT,
  PROP_QOS,
  PROP_CLIENT_ID,
  PROP_USERNAME,
  PROP_PASSWORD,
  PROP_TLS,
  PROP_CA_FILE,
  PROP_CERT_FILE,
  PROP_KEY_FILE,
  PROP_TLS_INSECURE,
  PROP_KEEPALIVE,
  PROP_QUEUE_SIZE,
  PROP_TOPIC,
  PROP_STATS_INTERVAL,
  PROP_FLUSH_TIMEOUT,
  PROP_STREAM_ID,  // and the two after it: install_results_properties()
};

// The connection's settings are read when the element goes to READY, where it connects: they
// change in the NULL state only (no GST_PARAM_MUTABLE flag).
constexpr GParamFlags kNullOnly =
    static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);

GParamSpec* string_spec(const char* name, const char* nick, const char* blurb,
                        GParamFlags flags = kNullOnly) {
  return g_param_spec_string(name, nick, blurb, "", flags);
}

}  // namespace

void install_mqtt_sink_properties(GObjectClass* klass,
                                  gpusift::gst::PropertyTable<MqttSinkSettings>* table) {
  using S = MqttSinkSettings;
  g_object_class_install_property(
      klass, PROP_STATS,
      g_param_spec_boxed("stats", "Statistics",
                         "Messages of this stream: frames, sent, dropped, queued, in-flight, "
                         "reconnects, connected",
                         GST_TYPE_STRUCTURE,
                         static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  table->install(klass, PROP_HOST,
                 g_param_spec_string("host", "Host", "The MQTT broker's host name or address",
                                     "localhost", kNullOnly),
                 [](S& s) { return PropertyField(&s.client.host); });
  table->install(
      klass, PROP_PORT,
      g_param_spec_int("port", "Port", "The broker's TCP port (8883 is the usual one with TLS)", 1,
                       65535, 1883, kNullOnly),
      [](S& s) { return PropertyField(&s.client.port); });
  table->install(klass, PROP_QOS,
                 g_param_spec_int("qos", "QoS",
                                  "MQTT quality of service: 0 at most once, 1 at least once "
                                  "(acknowledged by the broker)",
                                  0, 1, 0, kNullOnly),
                 [](S& s) { return PropertyField(&s.client.qos); });
  table->install(klass, PROP_CLIENT_ID,
                 string_spec("client-id", "Client id",
                             "The MQTT client id; empty: libmosquitto makes up a random one"),
                 [](S& s) { return PropertyField(&s.client.client_id); });
  table->install(klass, PROP_USERNAME,
                 string_spec("username", "User name", "User name for the broker; empty: none"),
                 [](S& s) { return PropertyField(&s.client.username); });
  // Write-only, so that gst-inspect-1.0, gst-launch-1.0 -v and debug logs never show it.
  table->install(
      klass, PROP_PASSWORD,
      g_param_spec_string("password", "Password", "Password for the broker (write-only)", "",
                          static_cast<GParamFlags>(G_PARAM_WRITABLE | G_PARAM_STATIC_STRINGS)),
      [](S& s) { return PropertyField(&s.client.password); });
  table->install(klass, PROP_TLS,
                 g_param_spec_boolean("tls", "TLS", "Connect with TLS", FALSE, kNullOnly),
                 [](S& s) { return PropertyField(&s.client.tls); });
  table->install(klass, PROP_CA_FILE,
                 string_spec("ca-file", "CA file",
                             "PEM file of the certificate authorities that sign the broker's "
                             "certificate; empty: the system's"),
                 [](S& s) { return PropertyField(&s.client.ca_file); });
  table->install(
      klass, PROP_CERT_FILE,
      string_spec("cert-file", "Certificate file",
                  "PEM client certificate, for brokers that require one (with key-file)"),
      [](S& s) { return PropertyField(&s.client.cert_file); });
  table->install(klass, PROP_KEY_FILE,
                 string_spec("key-file", "Key file", "PEM private key of cert-file (unencrypted)"),
                 [](S& s) { return PropertyField(&s.client.key_file); });
  table->install(klass, PROP_TLS_INSECURE,
                 g_param_spec_boolean("tls-insecure", "TLS insecure",
                                      "Do not check that the broker's certificate names the host "
                                      "(the certificate chain is still checked); for tests only",
                                      FALSE, kNullOnly),
                 [](S& s) { return PropertyField(&s.client.tls_insecure); });
  table->install(klass, PROP_KEEPALIVE,
                 g_param_spec_int("keepalive", "Keep-alive",
                                  "Seconds between pings when idle; a broker that does not answer "
                                  "within 1.5 times this is taken as gone",
                                  5, 65535, 60, kNullOnly),
                 [](S& s) { return PropertyField(&s.client.keepalive); });
  table->install(klass, PROP_QUEUE_SIZE,
                 g_param_spec_int("queue-size", "Queue size",
                                  "Messages kept while the broker is away or slow; past it the "
                                  "oldest is dropped (counted in stats)",
                                  1, 1000000, 100, kNullOnly),
                 [](S& s) { return PropertyField(&s.client.queue_size); });
  table->install(klass, PROP_TOPIC,
                 string_spec("topic", "Topic",
                             "Topic to publish to; empty: gpusift/<stream-id>/results", kReadyOnly),
                 [](S& s) { return PropertyField(&s.topic); });
  table->install(klass, PROP_STATS_INTERVAL,
                 g_param_spec_int("stats-interval", "Stats interval",
                                  "Milliseconds between keypointmqttsink stats messages on the "
                                  "bus (0: only the one at EOS)",
                                  0, G_MAXINT, 1000, kMutablePlaying),
                 [](S& s) { return PropertyField(&s.stats_interval_ms); });
  table->install(klass, PROP_FLUSH_TIMEOUT,
                 g_param_spec_int("flush-timeout", "Flush timeout",
                                  "Milliseconds EOS waits for the queue to reach the broker; what "
                                  "is left then is dropped",
                                  0, G_MAXINT, 5000, kMutablePlaying),
                 [](S& s) { return PropertyField(&s.flush_timeout_ms); });
  results::install_results_properties(klass, table, PROP_STREAM_ID);
}

}  // namespace gpusift::mqtt
