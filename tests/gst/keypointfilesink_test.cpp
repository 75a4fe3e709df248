// SPDX-License-Identifier: LGPL-2.1-or-later
// keypointfilesink: the file read back equals the metas of the buffers it was given, bit for bit;
// frames without the meta, empty streams, the location's life cycle, and every kind of bad
// location or failing write as an error on the bus at the frame it happens, without leaks.
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "frame_factory.h"
#include "gpusift/features_file.h"
#include "gpusift/features_file_reader.h"
#include "gst_test_support.h"
#include "scratch_dir_fixture.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

using gst_test::live_objects_named;

// A harness of one element, started at once, with a bus of its own for its messages.
GstHarness* harness_with_bus(GstElement* element, const char* sinkpad, const char* srcpad) {
  GstHarness* h = gst_harness_new_with_element(element, sinkpad, srcpad);
  gst_object_unref(element);
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(h->element, bus);
  gst_object_unref(bus);
  return h;
}

GstHarness* file_sink(const std::string& location) {
  GstElement* sink = gst_element_factory_make("keypointfilesink", nullptr);
  g_object_set(sink, "location", location.c_str(), nullptr);
  return harness_with_bus(sink, "sink", nullptr);
}

GstHarness* cpu_filter(const char* properties) {
  GstElement* filter = gst_element_factory_make("gpusiftfilter", nullptr);
  gst_util_set_object_arg(G_OBJECT(filter), "backend", "cpu");
  gchar** assignments = g_strsplit(properties, " ", -1);
  for (gchar** a = assignments; *a; ++a) {
    gchar** pair = g_strsplit(*a, "=", 2);
    if (pair[0] && pair[1])
      gst_util_set_object_arg(G_OBJECT(filter), pair[0], pair[1]);
    g_strfreev(pair);
  }
  g_strfreev(assignments);
  return harness_with_bus(filter, "sink", "src");
}

void teardown(GstHarness* h) {
  GstBus* bus = gst_element_get_bus(h->element);
  if (bus) {
    gst_bus_set_flushing(bus, TRUE);
    gst_object_unref(bus);
  }
  gst_harness_teardown(h);
}

std::vector<GstMessage*> bus_messages(GstElement* element, GstMessageType type) {
  std::vector<GstMessage*> found;
  GstBus* bus = gst_element_get_bus(element);
  if (!bus)
    return found;
  while (GstMessage* m = gst_bus_pop_filtered(bus, type))
    found.push_back(m);
  gst_object_unref(bus);
  return found;
}

void unref_all(const std::vector<GstMessage*>& messages) {
  for (GstMessage* m : messages)
    gst_message_unref(m);
}

// The one error message: its domain and code, and that its text names the location.
void expect_error(GstMessage* message, GQuark domain, gint code, const std::string& location) {
  ASSERT_NE(message, nullptr);
  GError* error = nullptr;
  gchar* debug = nullptr;
  gst_message_parse_error(message, &error, &debug);
  EXPECT_TRUE(g_error_matches(error, domain, code))
      << g_quark_to_string(error->domain) << " " << error->code << ": " << error->message;
  EXPECT_NE(std::string(error->message).find(location), std::string::npos) << error->message;
  EXPECT_NE(std::string(debug ? debug : "").find(location), std::string::npos) << debug;
  g_clear_error(&error);
  g_free(debug);
}

void expect_frame_equals_meta(const FeaturesFrame& frame, GstBuffer* buffer) {
  const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(buffer);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(frame.header.flags, 0u);
  EXPECT_EQ(frame.header.pts, GST_BUFFER_PTS(buffer));
  EXPECT_EQ(frame.header.width, meta->width);
  EXPECT_EQ(frame.header.height, meta->height);
  EXPECT_EQ(frame.header.method, static_cast<uint32_t>(meta->method));
  EXPECT_EQ(static_cast<int>(frame.header.descriptor_type),
            static_cast<int>(meta->descriptor_type));
  EXPECT_EQ(frame.header.descriptor_size, meta->descriptor_size);
  ASSERT_EQ(frame.header.n_keypoints, meta->n_keypoints);
  // memcmp wants valid pointers even for 0 bytes, and empty arrays may have none.
  EXPECT_TRUE(meta->n_keypoints == 0 || std::memcmp(frame.keypoints.data(), meta->keypoints,
                                                    meta->n_keypoints * sizeof(GstKeypoint)) == 0);
  const size_t descriptor_bytes = meta->n_keypoints * meta->descriptor_size *
                                  gst_keypoints_descriptor_type_element_size(meta->descriptor_type);
  ASSERT_EQ(frame.descriptors.size(), descriptor_bytes);
  EXPECT_TRUE(descriptor_bytes == 0 ||
              std::memcmp(frame.descriptors.data(), meta->descriptors, descriptor_bytes) == 0);
}

class KeypointFileSinkTest : public ScratchDirFixture {};

struct RoundTripCase {
  const char* name;
  const char* filter_properties;
  GstKeypointsMethod method;
  GstKeypointsDescriptorType descriptor_type;
};

class SinkRoundTrip : public KeypointFileSinkTest,
                      public ::testing::WithParamInterface<RoundTripCase> {};

// Four frames of different images and sizes through gpusiftfilter, the output buffers into the
// sink; the file read back equals those buffers' metas and timestamps.
TEST_P(SinkRoundTrip, FileEqualsTheMetasOfTheBuffers) {
  const std::vector<cv::Mat> images = {load_gray("camera.png"), load_gray("coins.png"),
                                       resized(load_gray("astronaut.png"), 320, 240),
                                       load_gray("chelsea.png")};
  GstHarness* filter = cpu_filter(GetParam().filter_properties);
  GstHarness* sink = file_sink(path("out.gpsf"));
  std::vector<GstBuffer*> seen;
  for (size_t i = 0; i < images.size(); ++i) {
    const cv::Mat& image = images[i];
    ASSERT_FALSE(image.empty());
    const std::string caps = caps_string(GST_VIDEO_FORMAT_GRAY8, image.cols, image.rows);
    gst_harness_set_src_caps_str(filter, caps.c_str());
    gst_harness_set_src_caps_str(sink, caps.c_str());
    GstBuffer* in = make_frame(image, GST_VIDEO_FORMAT_GRAY8);
    // The last frame has no timestamp: "none" is written as all ones.
    GST_BUFFER_PTS(in) = i + 1 < images.size() ? i * 40 * GST_MSECOND : GST_CLOCK_TIME_NONE;
    ASSERT_EQ(gst_harness_push(filter, in), GST_FLOW_OK);
    GstBuffer* out = gst_harness_pull(filter);
    ASSERT_NE(out, nullptr);
    const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(out);
    ASSERT_NE(meta, nullptr);
    EXPECT_GT(meta->n_keypoints, 20u);
    EXPECT_EQ(meta->method, GetParam().method);
    EXPECT_EQ(meta->descriptor_type, GetParam().descriptor_type);
    seen.push_back(gst_buffer_ref(out));
    ASSERT_EQ(gst_harness_push(sink, out), GST_FLOW_OK);
  }
  EXPECT_TRUE(gst_harness_push_event(sink, gst_event_new_eos()));
  EXPECT_TRUE(bus_messages(sink->element, GST_MESSAGE_ERROR).empty());
  teardown(sink);
  teardown(filter);

  const std::vector<FeaturesFrame> frames = read_features_file(path("out.gpsf"));
  ASSERT_EQ(frames.size(), seen.size());
  for (size_t i = 0; i < seen.size(); ++i) {
    SCOPED_TRACE("frame " + std::to_string(i));
    expect_frame_equals_meta(frames[i], seen[i]);
    gst_buffer_unref(seen[i]);
  }
  EXPECT_EQ(frames.back().header.pts, kFeaturesNoPts);
  EXPECT_NE(frames[0].header.n_keypoints, frames[1].header.n_keypoints);
}

INSTANTIATE_TEST_SUITE_P(
    MethodsAndDescriptors, SinkRoundTrip,
    ::testing::Values(RoundTripCase{"SiftFloat", "", GST_KEYPOINTS_METHOD_SIFT,
                                    GST_KEYPOINTS_DESCRIPTOR_FLOAT32},
                      RoundTripCase{"SiftUint8", "descriptor=uint8", GST_KEYPOINTS_METHOD_SIFT,
                                    GST_KEYPOINTS_DESCRIPTOR_UINT8},
                      RoundTripCase{"SiftNoDescriptor", "descriptor=none",
                                    GST_KEYPOINTS_METHOD_SIFT, GST_KEYPOINTS_DESCRIPTOR_NONE},
                      RoundTripCase{"Surf", "method=surf hessian-threshold=400",
                                    GST_KEYPOINTS_METHOD_SURF, GST_KEYPOINTS_DESCRIPTOR_FLOAT32}),
    [](const auto& info) { return std::string(info.param.name); });

struct BufferLog {
  std::mutex mutex;
  std::vector<GstBuffer*> buffers;
};

GstPadProbeReturn keep_buffer(GstPad*, GstPadProbeInfo* info, gpointer user_data) {
  auto* log = static_cast<BufferLog*>(user_data);
  const std::lock_guard<std::mutex> lock(log->mutex);
  log->buffers.push_back(gst_buffer_ref(GST_PAD_PROBE_INFO_BUFFER(info)));
  return GST_PAD_PROBE_OK;
}

// Runs `launch` to its end; the sink's buffers are kept in `log` when it is given.
GstMessageType run_pipeline(const std::string& launch, BufferLog* log = nullptr) {
  GstElement* pipeline = gst_parse_launch(launch.c_str(), nullptr);
  EXPECT_NE(pipeline, nullptr) << launch;
  if (pipeline == nullptr)
    return GST_MESSAGE_UNKNOWN;
  if (log != nullptr) {
    GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    GstPad* pad = gst_element_get_static_pad(sink, "sink");
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, keep_buffer, log, nullptr);
    gst_object_unref(pad);
    gst_object_unref(sink);
  }
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstBus* bus = gst_element_get_bus(pipeline);
  GstMessage* end = gst_bus_timed_pop_filtered(
      bus, 60 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  const GstMessageType type = end ? GST_MESSAGE_TYPE(end) : GST_MESSAGE_UNKNOWN;
  if (end)
    gst_message_unref(end);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return type;
}

TEST_F(KeypointFileSinkTest, APipelineWritesOneRecordPerFrameWithItsTimestamp) {
  BufferLog log;
  ASSERT_EQ(run_pipeline("videotestsrc num-buffers=6 pattern=ball ! "
                         "video/x-raw,format=I420,width=192,height=144,framerate=25/1 ! "
                         "gpusiftfilter backend=cpu ! keypointfilesink name=sink location=" +
                             path("ball.gpsf"),
                         &log),
            GST_MESSAGE_EOS);
  const std::vector<FeaturesFrame> frames = read_features_file(path("ball.gpsf"));
  ASSERT_EQ(frames.size(), 6u);
  ASSERT_EQ(log.buffers.size(), 6u);
  for (size_t i = 0; i < frames.size(); ++i) {
    SCOPED_TRACE("frame " + std::to_string(i));
    expect_frame_equals_meta(frames[i], log.buffers[i]);
    EXPECT_EQ(frames[i].header.pts, i * 40 * GST_MSECOND);
    EXPECT_GT(frames[i].header.n_keypoints, 0u);
    gst_buffer_unref(log.buffers[i]);
  }
}

TEST_F(KeypointFileSinkTest, AFrameWithoutTheMetaKeepsItsPlaceAsARecordWithoutFeatures) {
  const cv::Mat gray = load_gray("camera.png");
  GstHarness* filter = cpu_filter("");
  GstHarness* sink = file_sink(path("mixed.gpsf"));
  const std::string caps = caps_string(GST_VIDEO_FORMAT_GRAY8, gray.cols, gray.rows);
  gst_harness_set_src_caps_str(filter, caps.c_str());
  gst_harness_set_src_caps_str(sink, caps.c_str());

  GstBuffer* plain = make_frame(gray, GST_VIDEO_FORMAT_GRAY8);
  GST_BUFFER_PTS(plain) = 0;
  ASSERT_EQ(gst_harness_push(sink, plain), GST_FLOW_OK);
  GstBuffer* in = make_frame(gray, GST_VIDEO_FORMAT_GRAY8);
  GST_BUFFER_PTS(in) = 40 * GST_MSECOND;
  ASSERT_EQ(gst_harness_push(filter, in), GST_FLOW_OK);
  GstBuffer* with_meta = gst_harness_pull(filter);
  ASSERT_NE(with_meta, nullptr);
  gst_buffer_ref(with_meta);
  ASSERT_EQ(gst_harness_push(sink, with_meta), GST_FLOW_OK);
  GstBuffer* plain_again = make_frame(gray, GST_VIDEO_FORMAT_GRAY8);
  GST_BUFFER_PTS(plain_again) = 80 * GST_MSECOND;
  ASSERT_EQ(gst_harness_push(sink, plain_again), GST_FLOW_OK);
  EXPECT_TRUE(bus_messages(sink->element, GST_MESSAGE_ERROR).empty());
  teardown(sink);
  teardown(filter);

  const std::vector<FeaturesFrame> frames = read_features_file(path("mixed.gpsf"));
  ASSERT_EQ(frames.size(), 3u);
  for (size_t i : {0u, 2u}) {
    SCOPED_TRACE("frame " + std::to_string(i));
    EXPECT_EQ(frames[i].header.flags, kFeaturesRecordNoFeatures);
    EXPECT_EQ(frames[i].header.n_keypoints, 0u);
    EXPECT_EQ(frames[i].header.descriptor_type, DescriptorStorage::kNone);
    EXPECT_EQ(frames[i].header.width, static_cast<uint32_t>(gray.cols));
    EXPECT_EQ(frames[i].header.height, static_cast<uint32_t>(gray.rows));
    EXPECT_EQ(frames[i].header.pts, i * 40 * GST_MSECOND);
  }
  expect_frame_equals_meta(frames[1], with_meta);
  EXPECT_GT(frames[1].header.n_keypoints, 100u);
  gst_buffer_unref(with_meta);
}

TEST_F(KeypointFileSinkTest, EosBeforeAnyBufferLeavesAValidEmptyFile) {
  GstHarness* sink = file_sink(path("empty.gpsf"));
  EXPECT_TRUE(gst_harness_push_event(sink, gst_event_new_eos()));
  const auto eos = bus_messages(sink->element, GST_MESSAGE_EOS);
  EXPECT_EQ(eos.size(), 1u);
  unref_all(eos);
  teardown(sink);
  EXPECT_EQ(std::filesystem::file_size(path("empty.gpsf")), kFeaturesFileHeaderBytes);
  EXPECT_TRUE(read_features_file(path("empty.gpsf")).empty());

  ASSERT_EQ(run_pipeline("videotestsrc num-buffers=0 ! video/x-raw,width=64,height=48 ! "
                         "gpusiftfilter backend=cpu ! keypointfilesink location=" +
                         path("none.gpsf")),
            GST_MESSAGE_EOS);
  EXPECT_TRUE(read_features_file(path("none.gpsf")).empty());
}

TEST_F(KeypointFileSinkTest, LocationChangesInNullOnlyAndSyncIsOffByDefault) {
  GstHarness* sink = file_sink(path("first.gpsf"));
  gboolean sync = TRUE;
  g_object_get(sink->element, "sync", &sync, nullptr);
  EXPECT_FALSE(sync);
  g_object_set(sink->element, "location", path("second.gpsf").c_str(), nullptr);
  gchar* location = nullptr;
  g_object_get(sink->element, "location", &location, nullptr);
  EXPECT_EQ(std::string(location), path("first.gpsf"));
  g_free(location);
  teardown(sink);
  EXPECT_TRUE(std::filesystem::exists(path("first.gpsf")));
  EXPECT_FALSE(std::filesystem::exists(path("second.gpsf")));

  // As filesink: the file is open from READY on, and the location changes in NULL only.
  GstElement* element = gst_element_factory_make("keypointfilesink", nullptr);
  g_object_set(element, "location", path("a.gpsf").c_str(), nullptr);
  ASSERT_EQ(gst_element_set_state(element, GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
  EXPECT_TRUE(std::filesystem::exists(path("a.gpsf")));
  g_object_set(element, "location", path("b.gpsf").c_str(), nullptr);
  g_object_get(element, "location", &location, nullptr);
  EXPECT_EQ(std::string(location), path("a.gpsf"));
  g_free(location);
  ASSERT_EQ(gst_element_set_state(element, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  g_object_set(element, "location", path("b.gpsf").c_str(), nullptr);
  g_object_get(element, "location", &location, nullptr);
  EXPECT_EQ(std::string(location), path("b.gpsf"));
  g_free(location);
  ASSERT_EQ(gst_element_set_state(element, GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
  EXPECT_TRUE(std::filesystem::exists(path("b.gpsf")));
  gst_element_set_state(element, GST_STATE_NULL);
  gst_object_unref(element);
}

struct BadLocation {
  const char* name;
  std::string location;  // @TMP@ stands for the scratch folder
  GstResourceError code;
};

class SinkBadLocation : public KeypointFileSinkTest,
                        public ::testing::WithParamInterface<BadLocation> {
 protected:
  std::string location() const {
    std::string text = GetParam().location;
    const size_t at = text.find("@TMP@");
    if (at != std::string::npos)
      text.replace(at, 5, dir_);
    return text;
  }
};

// The state change to READY (the sink opens its file there) fails with one error naming the
// location, before any frame and with no EOS, and nothing leaks.
TEST_P(SinkBadLocation, FailsToStartWithAnErrorNamingTheLocation) {
  const int sinks_before = live_objects_named("GstKeypointFileSink");
  const int buffers_before = live_objects_named("GstBuffer");
  ASSERT_GE(sinks_before, 0) << "the leaks tracer is not active";
  for (int attempt = 0; attempt < 2; ++attempt) {
    const std::string launch =
        "videotestsrc num-buffers=3 ! video/x-raw,width=64,height=48 ! gpusiftfilter "
        "backend=cpu ! keypointfilesink location=\"" +
        location() + "\"";
    GstElement* pipeline = gst_parse_launch(launch.c_str(), nullptr);
    ASSERT_NE(pipeline, nullptr);
    EXPECT_EQ(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    const auto errors = bus_messages(pipeline, GST_MESSAGE_ERROR);
    ASSERT_GE(errors.size(), 1u);
    expect_error(errors[0], GST_RESOURCE_ERROR, GetParam().code, location());
    unref_all(errors);
    const auto eos = bus_messages(pipeline, GST_MESSAGE_EOS);
    EXPECT_TRUE(eos.empty());
    unref_all(eos);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
  }
  EXPECT_EQ(live_objects_named("GstKeypointFileSink"), sinks_before);
  EXPECT_EQ(live_objects_named("GstBuffer"), buffers_before);
}

INSTANTIATE_TEST_SUITE_P(
    AllKinds, SinkBadLocation,
    ::testing::Values(BadLocation{"MissingFolder", "@TMP@/no-such-folder/out.gpsf",
                                  GST_RESOURCE_ERROR_OPEN_WRITE},
                      BadLocation{"AFolder", "@TMP@", GST_RESOURCE_ERROR_OPEN_WRITE},
                      // procfs creates no files, whoever asks.
                      BadLocation{"UnderProc", "/proc/gpusift-features.gpsf",
                                  GST_RESOURCE_ERROR_OPEN_WRITE},
                      // Opening works; the file header is the first write, and /dev/full is full.
                      BadLocation{"DevFull", "/dev/full", GST_RESOURCE_ERROR_NO_SPACE_LEFT}),
    [](const auto& info) { return std::string(info.param.name); });

TEST_F(KeypointFileSinkTest, NoLocationIsAnError) {
  GstElement* pipeline = gst_parse_launch("videotestsrc num-buffers=1 ! keypointfilesink", nullptr);
  ASSERT_NE(pipeline, nullptr);
  EXPECT_EQ(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  const auto errors = bus_messages(pipeline, GST_MESSAGE_ERROR);
  ASSERT_GE(errors.size(), 1u);
  GError* error = nullptr;
  gst_message_parse_error(errors[0], &error, nullptr);
  EXPECT_TRUE(g_error_matches(error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND));
  g_clear_error(&error);
  unref_all(errors);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

// As a full disk, but at an exact byte: writes past RLIMIT_FSIZE fail with EFBIG.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    previous_handler_ = signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    signal(SIGXFSZ, previous_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit saved_{};
  sighandler_t previous_handler_;
};

// No frame is lost silently: the frame that does not fit returns GST_FLOW_ERROR with the error on
// the bus at once, and the file keeps exactly the frames before it.
TEST_F(KeypointFileSinkTest, AWriteFailureStopsTheStreamAtThatFrame) {
  const int sinks_before = live_objects_named("GstKeypointFileSink");
  ASSERT_GE(sinks_before, 0) << "the leaks tracer is not active";
  const cv::Mat gray = load_gray("camera.png");
  GstHarness* filter = cpu_filter("");
  const std::string caps = caps_string(GST_VIDEO_FORMAT_GRAY8, gray.cols, gray.rows);
  gst_harness_set_src_caps_str(filter, caps.c_str());
  ASSERT_EQ(gst_harness_push(filter, make_frame(gray, GST_VIDEO_FORMAT_GRAY8)), GST_FLOW_OK);
  GstBuffer* frame = gst_harness_pull(filter);
  ASSERT_NE(frame, nullptr);
  const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(frame);
  ASSERT_NE(meta, nullptr);
  const size_t record_bytes = kFeaturesRecordHeaderBytes + meta->n_keypoints * 28 +
                              meta->n_keypoints * meta->descriptor_size * sizeof(float);

  const std::string location = path("limited.gpsf");
  GstHarness* sink = file_sink(location);
  gst_harness_set_src_caps_str(sink, caps.c_str());
  {
    const FileSizeLimit limit(kFeaturesFileHeaderBytes + 2 * record_bytes + 100);
    for (int i = 0; i < 2; ++i) {
      ASSERT_EQ(gst_harness_push(sink, gst_buffer_ref(frame)), GST_FLOW_OK) << i;
      EXPECT_TRUE(bus_messages(sink->element, GST_MESSAGE_ERROR).empty()) << i;
    }
    EXPECT_EQ(gst_harness_push(sink, gst_buffer_ref(frame)), GST_FLOW_ERROR);
  }
  const auto errors = bus_messages(sink->element, GST_MESSAGE_ERROR);
  ASSERT_EQ(errors.size(), 1u);
  expect_error(errors[0], GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_WRITE, location);
  unref_all(errors);
  teardown(sink);

  const std::vector<FeaturesFrame> frames = read_features_file(location);
  ASSERT_EQ(frames.size(), 2u);
  expect_frame_equals_meta(frames[1], frame);
  gst_buffer_unref(frame);
  teardown(filter);
  EXPECT_EQ(live_objects_named("GstKeypointFileSink"), sinks_before);
}

TEST_F(KeypointFileSinkTest, AnyVideoCapsAreAcceptedAndOtherMediaRefused) {
  GstHarness* sink = file_sink(path("caps.gpsf"));
  GstPad* pad = gst_element_get_static_pad(sink->element, "sink");
  for (const char* accepted : {"video/x-raw,format=NV12,width=64,height=48",
                               "video/x-raw(memory:CUDAMemory),format=NV12,width=64,height=48",
                               "video/x-raw,format=GRAY16_LE,width=8,height=8"}) {
    GstCaps* caps = gst_caps_from_string(accepted);
    EXPECT_TRUE(gst_pad_query_accept_caps(pad, caps)) << accepted;
    gst_caps_unref(caps);
  }
  GstCaps* audio = gst_caps_from_string("audio/x-raw,format=S16LE");
  EXPECT_FALSE(gst_pad_query_accept_caps(pad, audio));
  gst_caps_unref(audio);
  gst_object_unref(pad);
  teardown(sink);
}

TEST_F(KeypointFileSinkTest, FiftyStartsAndStopsLeakNothing) {
  const int sinks_before = live_objects_named("GstKeypointFileSink");
  const int buffers_before = live_objects_named("GstBuffer");
  ASSERT_GE(sinks_before, 0) << "the leaks tracer is not active";
  for (int cycle = 0; cycle < 50; ++cycle) {
    ASSERT_EQ(run_pipeline("videotestsrc num-buffers=2 pattern=ball ! "
                           "video/x-raw,format=GRAY8,width=64,height=48 ! gpusiftfilter "
                           "backend=cpu descriptor=uint8 ! keypointfilesink location=" +
                           path("cycle.gpsf")),
              GST_MESSAGE_EOS);
  }
  EXPECT_EQ(read_features_file(path("cycle.gpsf")).size(), 2u);
  EXPECT_EQ(live_objects_named("GstKeypointFileSink"), sinks_before);
  EXPECT_EQ(live_objects_named("GstBuffer"), buffers_before);
}

}  // namespace
}  // namespace gpusift::testing
