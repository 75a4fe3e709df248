// SPDX-License-Identifier: LGPL-2.1-or-later
/* keypointjsonsink and keypointmqttsink as elements, from the built plugin, without a broker:
 * lines and their values, the property rules, clear errors for bad locations and settings, and an
 * absent broker that leaves the stream running with every frame counted as dropped. The Python
 * suites beside it run them against real pipelines, a real broker and the JSON Schema. */
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gtest/gtest.h>
#include <json-glib/json-glib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "gst_test_support.h"

namespace {

constexpr GstClockTime kTimeout = 30 * GST_SECOND;

struct Pipeline {
  GstElement* pipeline = nullptr;
  GstElement* src = nullptr;
  GstElement* sink = nullptr;

  explicit Pipeline(const std::string& sink_description) {
    GError* error = nullptr;
    const std::string description =
        "appsrc name=src format=time caps=video/x-raw,format=GRAY8,width=64,height=48,framerate="
        "30/1 ! " +
        sink_description + " name=sink";
    pipeline = gst_parse_launch(description.c_str(), &error);
    EXPECT_EQ(error, nullptr) << (error ? error->message : "");
    g_clear_error(&error);
    src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
    sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  }
  ~Pipeline() {
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(sink);
    gst_object_unref(src);
    gst_object_unref(pipeline);
  }

  // Pushes @n frames with a keypoints meta of i + 1 keypoints each, then EOS.
  void push_frames(int n) {
    for (int i = 0; i < n; ++i) {
      GstBuffer* buffer = gst_buffer_new_allocate(nullptr, 64 * 48, nullptr);
      GST_BUFFER_PTS(buffer) = static_cast<GstClockTime>(i) * GST_SECOND / 30;
      GST_BUFFER_DURATION(buffer) = GST_SECOND / 30;
      std::vector<GstKeypoint> keypoints(static_cast<size_t>(i + 1),
                                         GstKeypoint{1.5f, 2.25f, 3, 90, 0.5f, 0, -1});
      gst_buffer_add_keypoints_meta(buffer, GST_KEYPOINTS_METHOD_SIFT, 64, 48, keypoints.data(),
                                    static_cast<guint>(keypoints.size()),
                                    GST_KEYPOINTS_DESCRIPTOR_NONE, 0, nullptr);
      ASSERT_EQ(gst_app_src_push_buffer(GST_APP_SRC(src), buffer), GST_FLOW_OK);
    }
    gst_app_src_end_of_stream(GST_APP_SRC(src));
  }

  // The EOS or ERROR message; element messages on the way are handed to @seen.
  GstMessage* wait_end(std::vector<GstStructure*>* seen = nullptr) {
    GstBus* bus = gst_element_get_bus(pipeline);
    GstMessage* end = nullptr;
    while (end == nullptr) {
      GstMessage* m = gst_bus_timed_pop_filtered(
          bus, kTimeout,
          static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT));
      if (m == nullptr)
        break;
      if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ELEMENT) {
        if (seen != nullptr)
          seen->push_back(gst_structure_copy(gst_message_get_structure(m)));
        gst_message_unref(m);
        continue;
      }
      end = m;
    }
    gst_object_unref(bus);
    return end;
  }
};

std::string temp_path(const char* name) {
  gchar* dir = g_dir_make_tmp("results-sinks-XXXXXX", nullptr);
  std::string path = std::string(dir) + "/" + name;
  g_free(dir);
  return path;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

TEST(KeypointJsonSink, WritesOneLinePerFrameWithTheMetasValues) {
  const std::string path = temp_path("frames.jsonl");
  Pipeline p("keypointjsonsink location=\"" + path + "\" stream-id=door include-keypoints=true");
  ASSERT_EQ(gst_element_set_state(p.pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_ASYNC);
  p.push_frames(4);
  GstMessage* end = p.wait_end();
  ASSERT_NE(end, nullptr);
  EXPECT_EQ(GST_MESSAGE_TYPE(end), GST_MESSAGE_EOS);
  gst_message_unref(end);

  const std::vector<std::string> lines = lines_of(path);
  ASSERT_EQ(lines.size(), 4u);
  for (size_t i = 0; i < lines.size(); ++i) {
    JsonParser* parser = json_parser_new();
    ASSERT_TRUE(json_parser_load_from_data(parser, lines[i].c_str(), -1, nullptr)) << lines[i];
    JsonObject* root = json_node_get_object(json_parser_get_root(parser));
    EXPECT_STREQ(json_object_get_string_member(root, "stream_id"), "door");
    EXPECT_EQ(json_object_get_int_member(root, "seq"), static_cast<gint64>(i));
    EXPECT_EQ(json_object_get_int_member(root, "pts"), static_cast<gint64>(i * GST_SECOND / 30));
    EXPECT_EQ(json_object_get_int_member(root, "width"), 64);
    EXPECT_EQ(json_object_get_int_member(root, "height"), 48);
    JsonObject* features = json_object_get_object_member(root, "features");
    EXPECT_EQ(json_object_get_int_member(features, "count"), static_cast<gint64>(i + 1));
    JsonArray* keypoints = json_object_get_array_member(features, "keypoints");
    ASSERT_EQ(json_array_get_length(keypoints), i + 1);
    JsonObject* k = json_array_get_object_element(keypoints, 0);
    EXPECT_EQ(json_object_get_double_member(k, "x"), 1.5);
    EXPECT_EQ(json_object_get_double_member(k, "y"), 2.25);
    g_object_unref(parser);
  }
}

TEST(KeypointJsonSink, StreamIdDefaultsToTheElementsName) {
  const std::string path = temp_path("named.jsonl");
  Pipeline p("keypointjsonsink location=\"" + path + "\"");
  gst_element_set_state(p.pipeline, GST_STATE_PLAYING);
  p.push_frames(1);
  GstMessage* end = p.wait_end();
  ASSERT_NE(end, nullptr);
  gst_message_unref(end);
  const std::vector<std::string> lines = lines_of(path);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("\"stream_id\":\"sink\""), std::string::npos) << lines[0];
}

TEST(KeypointJsonSink, AFileThatCannotBeOpenedIsAResourceError) {
  Pipeline p("keypointjsonsink location=/nonexistent-folder/x.jsonl");
  EXPECT_EQ(gst_element_set_state(p.pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  GstMessage* end = p.wait_end();
  ASSERT_NE(end, nullptr);
  ASSERT_EQ(GST_MESSAGE_TYPE(end), GST_MESSAGE_ERROR);
  GError* error = nullptr;
  gst_message_parse_error(end, &error, nullptr);
  EXPECT_TRUE(g_error_matches(error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE));
  EXPECT_NE(std::string(error->message).find("/nonexistent-folder/x.jsonl"), std::string::npos);
  g_error_free(error);
  gst_message_unref(end);
}

TEST(KeypointJsonSink, NoLocationIsAnError) {
  Pipeline p("keypointjsonsink");
  EXPECT_EQ(gst_element_set_state(p.pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  GstMessage* end = p.wait_end();
  ASSERT_NE(end, nullptr);
  EXPECT_EQ(GST_MESSAGE_TYPE(end), GST_MESSAGE_ERROR);
  gst_message_unref(end);
}

TEST(KeypointJsonSink, AFullDeviceIsANoSpaceErrorAtTheFrame) {
  // /dev/full opens and takes nothing: the first line's flush fails with ENOSPC.
  Pipeline p("keypointjsonsink location=/dev/full");
  ASSERT_NE(gst_element_set_state(p.pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  p.push_frames(3);
  GstMessage* end = p.wait_end();
  ASSERT_NE(end, nullptr);
  ASSERT_EQ(GST_MESSAGE_TYPE(end), GST_MESSAGE_ERROR);
  GError* error = nullptr;
  gst_message_parse_error(end, &error, nullptr);
  EXPECT_TRUE(g_error_matches(error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT))
      << error->message;
  EXPECT_NE(std::string(error->message).find("/dev/full"), std::string::npos) << error->message;
  g_error_free(error);
  gst_message_unref(end);
}

TEST(KeypointJsonSink, ADirectoryIsNotAFile) {
  gchar* dir = g_dir_make_tmp("results-sinks-XXXXXX", nullptr);
  Pipeline p(std::string("keypointjsonsink location=\"") + dir + "\"");
  EXPECT_EQ(gst_element_set_state(p.pipeline, GST_STATE_READY), GST_STATE_CHANGE_FAILURE);
  GstMessage* end = p.wait_end();
  ASSERT_NE(end, nullptr);
  ASSERT_EQ(GST_MESSAGE_TYPE(end), GST_MESSAGE_ERROR);
  GError* error = nullptr;
  gst_message_parse_error(end, &error, nullptr);
  EXPECT_TRUE(g_error_matches(error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE));
  EXPECT_NE(std::string(error->message).find(dir), std::string::npos) << error->message;
  g_error_free(error);
  gst_message_unref(end);
  rmdir(dir);
  g_free(dir);
}

TEST(KeypointJsonSink, PropertiesFollowTheirFlags) {
  const std::string path = temp_path("flags.jsonl");
  Pipeline p("keypointjsonsink location=\"" + path + "\" stream-id=a");
  ASSERT_NE(gst_element_set_state(p.pipeline, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  const int warnings = gst_test::LogCounter::warnings();
  // location: NULL only; stream-id: NULL and READY; include-*: any time.
  g_object_set(p.sink, "location", "/tmp/other.jsonl", "stream-id", "b", nullptr);
  EXPECT_EQ(gst_test::LogCounter::warnings(), warnings + 2);
  EXPECT_EQ(gst_test::property_as_string(p.sink, "location"), path);
  EXPECT_EQ(gst_test::property_as_string(p.sink, "stream-id"), "a");
  g_object_set(p.sink, "include-tracks", TRUE, nullptr);
  EXPECT_EQ(gst_test::LogCounter::warnings(), warnings + 2);
  EXPECT_EQ(gst_test::property_as_string(p.sink, "include-tracks"), "true");
  // The sink does not wait for the clock by default.
  EXPECT_EQ(gst_test::property_as_string(p.sink, "sync"), "false");
}

// GPUSIFT_TEST_MQTT: the plugin was built with keypointmqttsink (meson defines it), so the
// element must be there; without it these tests are not built at all.
#ifdef GPUSIFT_TEST_MQTT

using KeypointMqttSink = ::testing::Test;

// A loopback TCP port where nothing listens (bound, then closed).
int closed_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

guint64 uint64_field(const GstStructure* s, const char* name) {
  guint64 value = G_MAXUINT64;
  EXPECT_TRUE(gst_structure_get_uint64(s, name, &value)) << name;
  return value;
}

// The error message that ends a pipeline whose change to READY fails.
GError* start_error(const std::string& sink) {
  Pipeline p(sink);
  EXPECT_EQ(gst_element_set_state(p.pipeline, GST_STATE_READY), GST_STATE_CHANGE_FAILURE);
  GstMessage* end = p.wait_end();
  if (end == nullptr || GST_MESSAGE_TYPE(end) != GST_MESSAGE_ERROR) {
    ADD_FAILURE() << "no error for " << sink;
    if (end != nullptr)
      gst_message_unref(end);
    return nullptr;
  }
  GError* error = nullptr;
  gst_message_parse_error(end, &error, nullptr);
  gst_message_unref(end);
  return error;
}

TEST_F(KeypointMqttSink, AnAbsentBrokerIsAWarningAndEveryFrameIsCounted) {
  const std::string sink = "keypointmqttsink host=127.0.0.1 port=" + std::to_string(closed_port()) +
                           " queue-size=3 flush-timeout=200 stats-interval=0 stream-id=lobby";
  Pipeline p(sink);
  const gint64 start = g_get_monotonic_time();
  ASSERT_NE(gst_element_set_state(p.pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  p.push_frames(10);
  std::vector<GstStructure*> seen;
  GstMessage* end = p.wait_end(&seen);
  ASSERT_NE(end, nullptr);
  EXPECT_EQ(GST_MESSAGE_TYPE(end), GST_MESSAGE_EOS);
  gst_message_unref(end);
  // Nothing waited for the network but EOS's flush-timeout.
  EXPECT_LT(g_get_monotonic_time() - start, 10 * G_USEC_PER_SEC);

  // One stats message, at EOS (stats-interval=0): every frame dropped, 7 for the full queue.
  ASSERT_EQ(seen.size(), 1u);
  const GstStructure* stats = seen[0];
  EXPECT_STREQ(gst_structure_get_name(stats), "keypointmqttsink");
  EXPECT_STREQ(gst_structure_get_string(stats, "stream-id"), "lobby");
  EXPECT_EQ(uint64_field(stats, "frames"), 10u);
  EXPECT_EQ(uint64_field(stats, "sent"), 0u);
  EXPECT_EQ(uint64_field(stats, "dropped"), 10u);
  EXPECT_EQ(uint64_field(stats, "queued"), 0u);
  EXPECT_EQ(uint64_field(stats, "in-flight"), 0u);
  gboolean eos = FALSE, connected = TRUE;
  EXPECT_TRUE(gst_structure_get_boolean(stats, "eos", &eos) && eos);
  EXPECT_TRUE(gst_structure_get_boolean(stats, "connected", &connected) && !connected);
  for (GstStructure* s : seen)
    gst_structure_free(s);

  // The property tells the same.
  GstStructure* property = nullptr;
  g_object_get(p.sink, "stats", &property, nullptr);
  ASSERT_NE(property, nullptr);
  EXPECT_EQ(uint64_field(property, "frames"), 10u);
  EXPECT_EQ(uint64_field(property, "dropped"), 10u);
  gst_structure_free(property);
}

TEST_F(KeypointMqttSink, TheAbsentBrokerWarningNamesTheBroker) {
  const int port = closed_port();
  Pipeline p("keypointmqttsink host=127.0.0.1 port=" + std::to_string(port) + " flush-timeout=0");
  ASSERT_NE(gst_element_set_state(p.pipeline, GST_STATE_READY), GST_STATE_CHANGE_FAILURE);
  GstBus* bus = gst_element_get_bus(p.pipeline);
  GstMessage* warning = gst_bus_timed_pop_filtered(bus, 0, GST_MESSAGE_WARNING);
  ASSERT_NE(warning, nullptr);
  GError* error = nullptr;
  gst_message_parse_warning(warning, &error, nullptr);
  EXPECT_TRUE(g_error_matches(error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE));
  EXPECT_NE(std::string(error->message).find("127.0.0.1:" + std::to_string(port)),
            std::string::npos)
      << error->message;
  g_error_free(error);
  gst_message_unref(warning);
  gst_object_unref(bus);
}

TEST_F(KeypointMqttSink, AWildcardInTheTopicIsASettingsError) {
  Pipeline p("keypointmqttsink stream-id=cam+1");
  EXPECT_EQ(gst_element_set_state(p.pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  GstMessage* end = p.wait_end();
  ASSERT_NE(end, nullptr);
  ASSERT_EQ(GST_MESSAGE_TYPE(end), GST_MESSAGE_ERROR);
  GError* error = nullptr;
  gst_message_parse_error(end, &error, nullptr);
  EXPECT_TRUE(g_error_matches(error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS));
  EXPECT_NE(std::string(error->message).find("gpusift/cam+1/results"), std::string::npos)
      << error->message;
  g_error_free(error);
  gst_message_unref(end);
}

TEST_F(KeypointMqttSink, AnUnreadableCaFileIsASettingsError) {
  GError* error = start_error("keypointmqttsink tls=true ca-file=/nonexistent/ca.pem");
  ASSERT_NE(error, nullptr);
  EXPECT_TRUE(g_error_matches(error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS));
  EXPECT_NE(std::string(error->message).find("TLS"), std::string::npos) << error->message;
  g_error_free(error);
}

TEST_F(KeypointMqttSink, ACertificateWithoutItsKeyIsASettingsError) {
  // Any readable file will do as the CA: the pair is checked before anything is read.
  const std::string pem = temp_path("ca.pem");
  ASSERT_TRUE(g_file_set_contents(pem.c_str(), "not a certificate\n", -1, nullptr));
  GError* error =
      start_error("keypointmqttsink tls=true ca-file=\"" + pem + "\" cert-file=\"" + pem + "\"");
  ASSERT_NE(error, nullptr);
  EXPECT_TRUE(g_error_matches(error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS));
  g_error_free(error);
}

TEST_F(KeypointMqttSink, AnEmptyHostIsASettingsError) {
  GError* error = start_error("keypointmqttsink host=\"\"");
  ASSERT_NE(error, nullptr);
  EXPECT_TRUE(g_error_matches(error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS));
  EXPECT_NE(std::string(error->message).find("no host"), std::string::npos) << error->message;
  g_error_free(error);
}

TEST_F(KeypointMqttSink, AWildcardTopicSetInReadyIsAnErrorAtTheFirstFrame) {
  // topic may change in READY, after the connection checked the one of then.
  Pipeline p("keypointmqttsink host=127.0.0.1 port=" + std::to_string(closed_port()) +
             " flush-timeout=0 stats-interval=0");
  ASSERT_NE(gst_element_set_state(p.pipeline, GST_STATE_READY), GST_STATE_CHANGE_FAILURE);
  g_object_set(p.sink, "topic", "cameras/#", nullptr);
  ASSERT_NE(gst_element_set_state(p.pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  p.push_frames(2);
  GstMessage* end = p.wait_end();
  ASSERT_NE(end, nullptr);
  ASSERT_EQ(GST_MESSAGE_TYPE(end), GST_MESSAGE_ERROR);
  GError* error = nullptr;
  gst_message_parse_error(end, &error, nullptr);
  EXPECT_TRUE(g_error_matches(error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS));
  EXPECT_NE(std::string(error->message).find("cameras/#"), std::string::npos) << error->message;
  g_error_free(error);
  gst_message_unref(end);
}

TEST_F(KeypointMqttSink, OutOfRangeValuesAreRefusedByTheirSpecs) {
  GstElement* sink = gst_element_factory_make("keypointmqttsink", nullptr);
  ASSERT_NE(sink, nullptr);
  const int refusals = gst_test::LogCounter::range_refusals();
  // GLib refuses a value outside a spec's range (a warning before 2.76, a critical from 2.76 on):
  // the property keeps its value.
  g_object_set(sink, "qos", 2, "port", 0, "queue-size", 0, "keepalive", 1, nullptr);
  EXPECT_EQ(gst_test::LogCounter::range_refusals(), refusals + 4);
  EXPECT_EQ(gst_test::property_as_string(sink, "qos"), "0");
  EXPECT_EQ(gst_test::property_as_string(sink, "port"), "1883");
  EXPECT_EQ(gst_test::property_as_string(sink, "queue-size"), "100");
  EXPECT_EQ(gst_test::property_as_string(sink, "keepalive"), "60");
  gst_object_unref(sink);
}

TEST_F(KeypointMqttSink, ConnectionSettingsChangeInNullOnly) {
  Pipeline p("keypointmqttsink host=127.0.0.1 port=" + std::to_string(closed_port()) +
             " flush-timeout=0 stream-id=a");
  ASSERT_NE(gst_element_set_state(p.pipeline, GST_STATE_READY), GST_STATE_CHANGE_FAILURE);
  const int warnings = gst_test::LogCounter::warnings();
  // Connected (or trying) with these: refused in READY, with one warning each.
  g_object_set(p.sink, "host", "example.org", "port", 1884, "qos", 1, "password", "x", nullptr);
  EXPECT_EQ(gst_test::LogCounter::warnings(), warnings + 4);
  EXPECT_EQ(gst_test::property_as_string(p.sink, "host"), "127.0.0.1");
  EXPECT_EQ(gst_test::property_as_string(p.sink, "qos"), "0");
  // READY ones change in READY, not in PAUSED; PLAYING ones at any time.
  g_object_set(p.sink, "stream-id", "b", nullptr);
  EXPECT_EQ(gst_test::property_as_string(p.sink, "stream-id"), "b");
  ASSERT_NE(gst_element_set_state(p.pipeline, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  g_object_set(p.sink, "stream-id", "c", "topic", "t", nullptr);
  EXPECT_EQ(gst_test::LogCounter::warnings(), warnings + 6);
  EXPECT_EQ(gst_test::property_as_string(p.sink, "stream-id"), "b");
  EXPECT_EQ(gst_test::property_as_string(p.sink, "topic"), "\"\"");
  g_object_set(p.sink, "include-tracks", TRUE, "stats-interval", 10, "flush-timeout", 1, nullptr);
  EXPECT_EQ(gst_test::LogCounter::warnings(), warnings + 6);
  EXPECT_EQ(gst_test::property_as_string(p.sink, "stats-interval"), "10");
}

TEST_F(KeypointMqttSink, ThePasswordIsWriteOnlyAndStatsReadOnly) {
  GstElement* sink = gst_element_factory_make("keypointmqttsink", nullptr);
  ASSERT_NE(sink, nullptr);
  GParamSpec* password = g_object_class_find_property(G_OBJECT_GET_CLASS(sink), "password");
  ASSERT_NE(password, nullptr);
  EXPECT_FALSE(password->flags & G_PARAM_READABLE);
  GParamSpec* stats = g_object_class_find_property(G_OBJECT_GET_CLASS(sink), "stats");
  ASSERT_NE(stats, nullptr);
  EXPECT_FALSE(stats->flags & G_PARAM_WRITABLE);
  EXPECT_EQ(gst_test::property_as_string(sink, "topic"), "\"\"");
  EXPECT_EQ(gst_test::property_as_string(sink, "port"), "1883");
  EXPECT_EQ(gst_test::property_as_string(sink, "qos"), "0");
  EXPECT_EQ(gst_test::property_as_string(sink, "sync"), "false");
  gst_object_unref(sink);
}

#endif  // GPUSIFT_TEST_MQTT

}  // namespace
