// SPDX-License-Identifier: LGPL-2.1-or-later
/* keypointmqttsink: every buffer's results JSON published to an MQTT broker, one message per
 * frame on the stream's topic. The streaming thread serialises and queues; the network is the
 * client's (mqtt_client.h), so a slow or absent broker never holds the pipeline: messages wait in
 * a bounded queue and the oldest are dropped, counted, when it is full. */
#include "gstkeypointmqttsink.h"

#include <mosquitto.h>
#include <mqtt_protocol.h>

#include <string>

#include "base/property_field.h"
#include "base/sink_property_rule.h"
#include "mqtt_client.h"
#include "mqtt_settings.h"
#include "results/results_properties.h"
#include "results/results_serializer.h"

/**
 * SECTION:element-keypointmqttsink
 * @title: keypointmqttsink
 *
 * keypointmqttsink publishes one MQTT message per buffer to the broker at
 * #GstKeypointMqttSink:host and #GstKeypointMqttSink:port, on #GstKeypointMqttSink:topic
 * (default "gpusift/<stream-id>/results"). The message is the frame's results JSON, the same
 * object keypointjsonsink writes as a line: features, camera motion, track counts and found
 * objects (docs/results-json.md).
 *
 * The pipeline never waits for the network. Messages go through a queue of
 * #GstKeypointMqttSink:queue-size; while the broker is away or slower than the stream the queue
 * fills and its oldest messages are dropped. The element reconnects by itself (after 1 s, then
 * doubling up to 10 s), and counts frames, messages sent (written with QoS 0, acknowledged by
 * the broker with QoS 1), dropped, queued, in flight and reconnections: the read-only
 * #GstKeypointMqttSink:stats structure, also posted as a "keypointmqttsink" element message every
 * #GstKeypointMqttSink:stats-interval and at EOS, where frames = sent + dropped. EOS waits up to
 * #GstKeypointMqttSink:flush-timeout for the queue to reach the broker.
 *
 * Connecting happens when the element goes to READY, with a wait of up to 5 s for the broker's
 * answer. A refusal by the broker (bad user name or password, not authorised, a rejected client
 * id) is an error then, RESOURCE NOT_AUTHORIZED or OPEN_WRITE, and the state change fails; so is
 * a failed TLS handshake (a certificate that #GstKeypointMqttSink:ca-file does not trust). A broker
 * that is merely absent (nothing listening, no answer, a host not found) is a warning, and the
 * element keeps trying in the background while the stream runs. A lost connection later is a
 * warning once per outage, a refused reconnection one per refusal.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -m videotestsrc is-live=true pattern=ball ! gpusiftfilter ! keypointtracker ! \
 *     keypointmqttsink host=broker.local stream-id=cam0
 * ]|
 * Publishes each frame's motion and track counts to gpusift/cam0/results; mosquitto_sub -t
 * 'gpusift/+/results' prints them.
 *
 * Since: 0.1
 */

GST_DEBUG_CATEGORY_STATIC(gst_keypoint_mqtt_sink_debug);
#define GST_CAT_DEFAULT gst_keypoint_mqtt_sink_debug

namespace {

using gpusift::mqtt::MqttSinkSettings;

// How long going to READY waits for the broker's answer to the first connection.
constexpr gint64 kFirstAnswerWaitUs = 5 * G_USEC_PER_SEC;

gpusift::gst::PropertyTable<MqttSinkSettings>& mqtt_sink_properties() {
  static gpusift::gst::PropertyTable<MqttSinkSettings> table;
  return table;
}

}  // namespace

/* Only the metas are read, so any video, in any memory. */
static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE(
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-raw(ANY)"));

struct _GstKeypointMqttSink {
  GstBaseSink parent;

  MqttSinkSettings* settings;                   /* object lock */
  gpusift::mqtt::MqttClient* client;            /* object lock to reach; between start and stop */
  gpusift::mqtt::ClientStats* last;             /* object lock: the stats when the client stopped */
  gpusift::results::ResultsSerializer* results; /* streaming thread */
  std::string* stream_id;                       /* streaming thread: the one the stats name */
  std::string* topic;                           /* streaming thread: the topic checked last */
  gint64 last_stats_us;                         /* streaming thread */
};

G_DEFINE_TYPE_WITH_CODE(GstKeypointMqttSink, gst_keypoint_mqtt_sink, GST_TYPE_BASE_SINK,
                        GST_DEBUG_CATEGORY_INIT(gst_keypoint_mqtt_sink_debug, "keypointmqttsink", 0,
                                                "Keypoint results MQTT sink"))
GST_ELEMENT_REGISTER_DEFINE(keypointmqttsink, "keypointmqttsink", GST_RANK_NONE,
                            GST_TYPE_KEYPOINT_MQTT_SINK)

namespace {

gpusift::mqtt::ClientStats current_stats(GstKeypointMqttSink* self) {
  GST_OBJECT_LOCK(self);
  const gpusift::mqtt::ClientStats stats = self->client ? self->client->stats() : *self->last;
  GST_OBJECT_UNLOCK(self);
  return stats;
}

GstStructure* stats_structure(const gpusift::mqtt::ClientStats& s, const std::string& stream_id,
                              bool eos) {
  return gst_structure_new(
      "keypointmqttsink", "stream-id", G_TYPE_STRING, stream_id.c_str(), "frames", G_TYPE_UINT64,
      s.counts.frames, "sent", G_TYPE_UINT64, s.counts.sent, "dropped", G_TYPE_UINT64,
      s.counts.dropped, "queued", G_TYPE_UINT64, s.counts.queued, "in-flight", G_TYPE_UINT64,
      s.counts.in_flight, "reconnects", G_TYPE_UINT64, s.reconnects, "connected", G_TYPE_BOOLEAN,
      s.connected, "eos", G_TYPE_BOOLEAN, eos, nullptr);
}

void post_stats(GstKeypointMqttSink* self, bool eos) {
  GstStructure* s = stats_structure(current_stats(self), *self->stream_id, eos);
  gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), s));
}

// FALSE, after an error on the bus, when @topic cannot be published to. topic and stream-id may
// change in READY, after start() checked them, so render() checks a topic it has not seen.
bool check_topic(GstKeypointMqttSink* self, const std::string& topic) {
  if (mosquitto_pub_topic_check(topic.c_str()) == MOSQ_ERR_SUCCESS)
    return true;
  GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("Invalid MQTT topic \"%s\".", topic.c_str()),
                    ("a topic to publish to is not empty and has no + or #; check topic and "
                     "stream-id"));
  return false;
}

}  // namespace

static void gst_keypoint_mqtt_sink_set_property(GObject* object, guint prop_id, const GValue* value,
                                                GParamSpec* pspec) {
  GstKeypointMqttSink* self = GST_KEYPOINT_MQTT_SINK(object);
  if (!gpusift::gst::sink_property_settable_now(GST_ELEMENT(self), pspec))
    return;
  GST_OBJECT_LOCK(self);
  mqtt_sink_properties().set(self->settings, prop_id, value);
  GST_OBJECT_UNLOCK(self);
}

static void gst_keypoint_mqtt_sink_get_property(GObject* object, guint prop_id, GValue* value,
                                                GParamSpec* pspec) {
  GstKeypointMqttSink* self = GST_KEYPOINT_MQTT_SINK(object);
  if (prop_id == gpusift::mqtt::kStatsPropertyId) {
    GST_OBJECT_LOCK(self);
    const std::string stream_id = self->settings->results.options(GST_OBJECT(self)).stream_id;
    GST_OBJECT_UNLOCK(self);
    g_value_take_boxed(value, stats_structure(current_stats(self), stream_id, false));
    return;
  }
  GST_OBJECT_LOCK(self);
  mqtt_sink_properties().get(*self->settings, prop_id, value);
  GST_OBJECT_UNLOCK(self);
  (void)pspec;
}

static void gst_keypoint_mqtt_sink_finalize(GObject* object) {
  GstKeypointMqttSink* self = GST_KEYPOINT_MQTT_SINK(object);
  delete self->client;
  delete self->results;
  delete self->stream_id;
  delete self->topic;
  delete self->last;
  delete self->settings;
  G_OBJECT_CLASS(gst_keypoint_mqtt_sink_parent_class)->finalize(object);
}

static gboolean gst_keypoint_mqtt_sink_start(GstBaseSink* sink) {
  GstKeypointMqttSink* self = GST_KEYPOINT_MQTT_SINK(sink);
  GST_OBJECT_LOCK(self);
  const MqttSinkSettings settings = *self->settings;
  const std::string stream_id = settings.results.options(GST_OBJECT(self)).stream_id;
  GST_OBJECT_UNLOCK(self);
  const std::string topic = settings.topic_for(stream_id);
  const gpusift::mqtt::ClientOptions& options = settings.client;
  if (!check_topic(self, topic))
    return FALSE;

  // The client's threads report outages through the bus; the element outlives the client.
  auto* client = new gpusift::mqtt::MqttClient(options, [self](const std::string& text) {
    GST_ELEMENT_WARNING(self, RESOURCE, WRITE, ("%s", text.c_str()), (nullptr));
  });
  std::string detail;
  const auto result = client->start(kFirstAnswerWaitUs, &detail);
  const char* where = options.host.c_str();
  switch (result) {
    case gpusift::mqtt::MqttClient::StartResult::kConnected:
      GST_INFO_OBJECT(self, "connected to %s:%d, publishing to %s", where, options.port,
                      topic.c_str());
      break;
    case gpusift::mqtt::MqttClient::StartResult::kRetrying:
      GST_ELEMENT_WARNING(self, RESOURCE, OPEN_WRITE,
                          ("Could not connect to the MQTT broker at %s:%d; retrying in the "
                           "background.",
                           where, options.port),
                          ("%s; results wait in a queue of %d and the oldest are dropped beyond it",
                           detail.c_str(), options.queue_size));
      break;
    case gpusift::mqtt::MqttClient::StartResult::kRefused: {
      const int code = client->last_refusal();
      if (code == CONNACK_REFUSED_BAD_USERNAME_PASSWORD || code == CONNACK_REFUSED_NOT_AUTHORIZED)
        GST_ELEMENT_ERROR(self, RESOURCE, NOT_AUTHORIZED,
                          ("The MQTT broker at %s:%d refused the connection: %s; check username "
                           "and password.",
                           where, options.port, detail.c_str()),
                          ("user \"%s\"", options.username.c_str()));
      else
        GST_ELEMENT_ERROR(self, RESOURCE, OPEN_WRITE,
                          ("The MQTT broker at %s:%d refused the connection: %s.", where,
                           options.port, detail.c_str()),
                          ("check client-id (\"%s\")", options.client_id.c_str()));
      delete client;
      return FALSE;
    }
    case gpusift::mqtt::MqttClient::StartResult::kTlsFailed:
      GST_ELEMENT_ERROR(self, RESOURCE, OPEN_WRITE,
                        ("The TLS handshake with the MQTT broker at %s:%d failed; check ca-file "
                         "(and cert-file, key-file) against the broker's certificate.",
                         where, options.port),
                        ("%s", detail.c_str()));
      delete client;
      return FALSE;
    case gpusift::mqtt::MqttClient::StartResult::kInvalid:
      GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS,
                        ("Could not set up the MQTT connection to %s:%d: %s.", where, options.port,
                         detail.c_str()),
                        (nullptr));
      delete client;
      return FALSE;
  }
  delete self->results;
  self->results = new gpusift::results::ResultsSerializer();
  *self->stream_id = stream_id;
  *self->topic = topic;
  self->last_stats_us = g_get_monotonic_time();
  GST_OBJECT_LOCK(self);
  self->client = client;
  GST_OBJECT_UNLOCK(self);
  return TRUE;
}

static gboolean gst_keypoint_mqtt_sink_stop(GstBaseSink* sink) {
  GstKeypointMqttSink* self = GST_KEYPOINT_MQTT_SINK(sink);
  GST_OBJECT_LOCK(self);
  gpusift::mqtt::MqttClient* client = self->client;
  self->client = nullptr;
  if (client != nullptr)
    *self->last = client->stats();
  GST_OBJECT_UNLOCK(self);
  if (client != nullptr) {
    client->stop();
    // What stop() dropped counts too.
    const gpusift::mqtt::ClientStats stats = client->stats();
    GST_OBJECT_LOCK(self);
    *self->last = stats;
    GST_OBJECT_UNLOCK(self);
    delete client;
  }
  delete self->results;
  self->results = nullptr;
  return TRUE;
}

static gboolean gst_keypoint_mqtt_sink_set_caps(GstBaseSink* sink, GstCaps* caps) {
  GstKeypointMqttSink* self = GST_KEYPOINT_MQTT_SINK(sink);
  self->results->set_frame_size_from_caps(caps);
  return TRUE;
}

static GstFlowReturn gst_keypoint_mqtt_sink_render(GstBaseSink* sink, GstBuffer* buffer) {
  GstKeypointMqttSink* self = GST_KEYPOINT_MQTT_SINK(sink);
  GST_OBJECT_LOCK(self);
  const gpusift::results::ResultsOptions options =
      self->settings->results.options(GST_OBJECT(self));
  const std::string topic = self->settings->topic_for(options.stream_id);
  const gint64 stats_interval_us =
      static_cast<gint64>(self->settings->stats_interval_ms) * G_USEC_PER_SEC / 1000;
  gpusift::mqtt::MqttClient* client = self->client;
  GST_OBJECT_UNLOCK(self);

  if (topic != *self->topic) {
    if (!check_topic(self, topic))
      return GST_FLOW_ERROR;
    *self->topic = topic;
  }
  if (options.stream_id != *self->stream_id)
    *self->stream_id = options.stream_id;

  gpusift::mqtt::PublishMessage message;
  GError* inconsistency = nullptr;
  if (!self->results->serialize(buffer, options, &message.payload, &inconsistency)) {
    GST_ELEMENT_ERROR(
        self, STREAM, FORMAT, ("Inconsistent keypoints metadata on a buffer."),
        ("%s (the meta's fields were changed after it was added)", inconsistency->message));
    g_error_free(inconsistency);
    return GST_FLOW_ERROR;
  }
  message.topic = topic;
  // The client lives until stop(), which cannot run while the streaming thread is here.
  client->enqueue(std::move(message));

  const gint64 now = g_get_monotonic_time();
  if (stats_interval_us > 0 && now - self->last_stats_us >= stats_interval_us) {
    self->last_stats_us = now;
    post_stats(self, false);
  }
  return GST_FLOW_OK;
}

static gboolean gst_keypoint_mqtt_sink_event(GstBaseSink* sink, GstEvent* event) {
  GstKeypointMqttSink* self = GST_KEYPOINT_MQTT_SINK(sink);
  switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_FLUSH_STOP:
    case GST_EVENT_STREAM_START:
      // What follows does not continue the frames before: objects get new ids.
      if (self->results != nullptr)
        self->results->forget_continuity();
      break;
    case GST_EVENT_EOS: {
      GST_OBJECT_LOCK(self);
      const gint64 timeout_us =
          static_cast<gint64>(self->settings->flush_timeout_ms) * G_USEC_PER_SEC / 1000;
      gpusift::mqtt::MqttClient* client = self->client;
      GST_OBJECT_UNLOCK(self);
      // The stats posted before EOS are final: every frame is sent or dropped.
      if (client != nullptr)
        client->flush(timeout_us);
      post_stats(self, true);
      break;
    }
    default:
      break;
  }
  return GST_BASE_SINK_CLASS(gst_keypoint_mqtt_sink_parent_class)->event(sink, event);
}

static void gst_keypoint_mqtt_sink_class_init(GstKeypointMqttSinkClass* klass) {
  GObjectClass* gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
  GstBaseSinkClass* sink_class = GST_BASE_SINK_CLASS(klass);

  gobject_class->set_property = gst_keypoint_mqtt_sink_set_property;
  gobject_class->get_property = gst_keypoint_mqtt_sink_get_property;
  gobject_class->finalize = gst_keypoint_mqtt_sink_finalize;
  gpusift::mqtt::install_mqtt_sink_properties(gobject_class, &mqtt_sink_properties());

  gst_element_class_set_static_metadata(
      element_class, "Keypoint results MQTT sink", "Sink/Network",
      "Publishes each buffer's keypoint results (features, camera motion, tracks, found objects) "
      "as JSON to an MQTT broker, without ever blocking the stream on the network",
      "gpusift");
  gst_element_class_add_static_pad_template(element_class, &sink_template);

  sink_class->start = GST_DEBUG_FUNCPTR(gst_keypoint_mqtt_sink_start);
  sink_class->stop = GST_DEBUG_FUNCPTR(gst_keypoint_mqtt_sink_stop);
  sink_class->set_caps = GST_DEBUG_FUNCPTR(gst_keypoint_mqtt_sink_set_caps);
  sink_class->render = GST_DEBUG_FUNCPTR(gst_keypoint_mqtt_sink_render);
  sink_class->event = GST_DEBUG_FUNCPTR(gst_keypoint_mqtt_sink_event);
}

static void gst_keypoint_mqtt_sink_init(GstKeypointMqttSink* self) {
  self->settings = new MqttSinkSettings();
  self->last = new gpusift::mqtt::ClientStats();
  self->stream_id = new std::string();
  self->topic = new std::string();
  gst_base_sink_set_sync(GST_BASE_SINK(self), FALSE);
}
