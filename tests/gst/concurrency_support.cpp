// SPDX-License-Identifier: LGPL-2.1-or-later
#include "concurrency_support.h"

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>

#include "frame_factory.h"
#include "test_images.h"

namespace gpusift::testing {

namespace {

constexpr int kFramesPerStream = 3;
constexpr GstClockTime kEndTimeout = 300 * GST_SECOND;

// Both methods, every descriptor format, overflow and upscaling: one entry per stream.
const char* const kFilterSettings[] = {
    "method=sift",
    "method=sift descriptor=uint8 nfeatures=50",
    "method=surf",
    "method=surf extended=true upright=true",
    "method=sift upscale=true",
    "method=sift descriptor=rootsift n-octave-layers=4",
    "method=surf hessian-threshold=300 descriptor=none",
    "method=sift contrast-threshold=0.02 max-keypoints=40",
};
constexpr int kSettingsCount = sizeof(kFilterSettings) / sizeof(kFilterSettings[0]);

const GstVideoFormat kFormats[] = {GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_NV12,
                                   GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_BGRx};

std::vector<guint8> bytes_of(const void* data, size_t size) {
  const auto* begin = static_cast<const guint8*>(data);
  return data ? std::vector<guint8>(begin, begin + size) : std::vector<guint8>();
}

FrameFeatures features_of(GstBuffer* buffer) {
  FrameFeatures f;
  f.pts = GST_BUFFER_PTS(buffer);
  const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(buffer);
  if (meta == nullptr)
    return f;
  f.width = meta->width;
  f.height = meta->height;
  f.method = meta->method;
  f.descriptor_type = meta->descriptor_type;
  f.descriptor_size = meta->descriptor_size;
  f.keypoints = bytes_of(meta->keypoints, meta->n_keypoints * sizeof(GstKeypoint));
  f.descriptors = bytes_of(meta->descriptors,
                           static_cast<size_t>(meta->n_keypoints) * meta->descriptor_size *
                               gst_keypoints_descriptor_type_element_size(meta->descriptor_type));
  return f;
}

GstFlowReturn on_new_sample(GstAppSink* sink, gpointer user_data) {
  GstSample* sample = gst_app_sink_pull_sample(sink);
  if (sample == nullptr)
    return GST_FLOW_EOS;
  static_cast<StreamFeatures*>(user_data)->frames.push_back(
      features_of(gst_sample_get_buffer(sample)));
  gst_sample_unref(sample);
  return GST_FLOW_OK;
}

void collect_into(GstElement* pipeline, const std::string& sink_name, StreamFeatures* out) {
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), sink_name.c_str());
  GstAppSinkCallbacks callbacks = {};
  callbacks.new_sample = on_new_sample;
  gst_app_sink_set_callbacks(GST_APP_SINK(sink), &callbacks, out, nullptr);
  gst_object_unref(sink);
}

void queue_frames(GstElement* pipeline, const StreamSpec& stream) {
  GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  for (GstBuffer* frame : stream.frames)
    gst_app_src_push_buffer(GST_APP_SRC(src), gst_buffer_ref(frame));
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  gst_object_unref(src);
}

std::string source(const StreamSpec& stream) {
  return "appsrc name=src format=time caps=" + stream.caps;
}

std::string branch(const StreamSpec& stream, const std::string& sink_name) {
  return "gpusiftfilter " + stream.filter_properties + " ! appsink name=" + sink_name +
         " sync=false";
}

GstElement* parse(const std::string& description, std::string* error) {
  GError* parse_error = nullptr;
  GstElement* pipeline = gst_parse_launch_full(description.c_str(), nullptr,
                                               GST_PARSE_FLAG_FATAL_ERRORS, &parse_error);
  if (pipeline == nullptr) {
    *error = "cannot build " + description + ": " + parse_error->message;
    g_clear_error(&parse_error);
  }
  return pipeline;
}

// Waits for EOS; the error's text otherwise.
std::string wait_for_eos(GstElement* pipeline) {
  GstBus* bus = gst_element_get_bus(pipeline);
  GstMessage* end = gst_bus_timed_pop_filtered(
      bus, kEndTimeout, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  gst_object_unref(bus);
  if (end == nullptr)
    return "no EOS within the timeout";
  std::string error;
  if (GST_MESSAGE_TYPE(end) == GST_MESSAGE_ERROR) {
    GError* gerror = nullptr;
    gchar* debug = nullptr;
    gst_message_parse_error(end, &gerror, &debug);
    error = std::string(gerror->message) + " (" + (debug ? debug : "") + ")";
    g_clear_error(&gerror);
    g_free(debug);
  }
  gst_message_unref(end);
  return error;
}

void stop(GstElement* pipeline) {
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

// kFramesPerStream crops of `image` resized a little larger than width x height, each shifted.
std::vector<GstBuffer*> moving_frames(const cv::Mat& image, int width, int height,
                                      GstVideoFormat format) {
  cv::Mat larger;
  cv::resize(image, larger, cv::Size(width + 2 * kFramesPerStream, height + kFramesPerStream), 0, 0,
             cv::INTER_AREA);
  std::vector<GstBuffer*> frames;
  for (int i = 0; i < kFramesPerStream; ++i) {
    const cv::Mat crop = larger(cv::Rect(2 * i, i, width, height)).clone();
    GstBuffer* frame = make_frame(crop, format);
    GST_BUFFER_PTS(frame) = i * GST_SECOND / 30;
    GST_BUFFER_DURATION(frame) = GST_SECOND / 30;
    frames.push_back(frame);
  }
  return frames;
}

int base_width(const std::string& backend) {
  return backend == "cuda" ? 640 : 160;
}

}  // namespace

bool FrameFeatures::operator==(const FrameFeatures& o) const {
  return pts == o.pts && width == o.width && height == o.height && method == o.method &&
         descriptor_type == o.descriptor_type && descriptor_size == o.descriptor_size &&
         keypoints == o.keypoints && descriptors == o.descriptors;
}

std::vector<StreamSpec> varied_streams(const std::string& backend, int count) {
  std::vector<StreamSpec> streams;
  const std::vector<std::string>& images = parity_image_names();
  for (int i = 0; i < count; ++i) {
    const int width = base_width(backend) + 16 * i;
    const int height = width * 3 / 4 + (i % 2);
    const GstVideoFormat format = kFormats[i % 4];
    StreamSpec s;
    s.name = "stream" + std::to_string(i);
    s.caps = caps_string(format, width, height);
    s.frames = moving_frames(load_bgr(images[i % images.size()]), width, height, format);
    s.filter_properties = "backend=" + backend + " " + kFilterSettings[i % kSettingsCount];
    streams.push_back(s);
  }
  return streams;
}

std::vector<StreamSpec> tee_streams(const std::string& backend, int count) {
  std::vector<StreamSpec> streams = varied_streams(backend, count);
  for (int i = 1; i < count; ++i) {
    for (GstBuffer* frame : streams[i].frames)
      gst_buffer_unref(frame);
    streams[i].caps = streams[0].caps;
    streams[i].frames.clear();
    for (GstBuffer* frame : streams[0].frames)
      streams[i].frames.push_back(gst_buffer_ref(frame));
  }
  return streams;
}

void release_streams(std::vector<StreamSpec>* streams) {
  for (StreamSpec& s : *streams) {
    for (GstBuffer* frame : s.frames)
      gst_buffer_unref(frame);
    s.frames.clear();
  }
}

StreamFeatures run_alone(const StreamSpec& stream) {
  return run_concurrently({stream}).front();
}

std::vector<StreamFeatures> run_concurrently(const std::vector<StreamSpec>& streams,
                                             GstContext* shared_context) {
  std::vector<StreamFeatures> results(streams.size());
  std::vector<GstElement*> pipelines(streams.size(), nullptr);
  for (size_t i = 0; i < streams.size(); ++i) {
    pipelines[i] =
        parse(source(streams[i]) + " ! " + branch(streams[i], "sink"), &results[i].error);
    if (pipelines[i] == nullptr)
      continue;
    if (shared_context)
      gst_element_set_context(pipelines[i], shared_context);
    collect_into(pipelines[i], "sink", &results[i]);
    queue_frames(pipelines[i], streams[i]);
  }
  for (GstElement* pipeline : pipelines) {
    if (pipeline)
      gst_element_set_state(pipeline, GST_STATE_PLAYING);
  }
  for (size_t i = 0; i < streams.size(); ++i) {
    if (pipelines[i] == nullptr)
      continue;
    results[i].error = wait_for_eos(pipelines[i]);
    stop(pipelines[i]);
  }
  return results;
}

std::vector<StreamFeatures> run_through_tee(const std::vector<StreamSpec>& streams) {
  std::vector<StreamFeatures> results(streams.size());
  std::string description = source(streams.front()) + " ! tee name=t";
  for (size_t i = 0; i < streams.size(); ++i)
    description += " t. ! queue ! " + branch(streams[i], "sink" + std::to_string(i));
  std::string error;
  GstElement* pipeline = parse(description, &error);
  if (pipeline == nullptr) {
    results.front().error = error;
    return results;
  }
  for (size_t i = 0; i < streams.size(); ++i)
    collect_into(pipeline, "sink" + std::to_string(i), &results[i]);
  queue_frames(pipeline, streams.front());
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  results.front().error = wait_for_eos(pipeline);
  stop(pipeline);
  return results;
}

std::string difference(const StreamFeatures& expected, const StreamFeatures& actual) {
  if (!expected.error.empty() || !actual.error.empty())
    return "errors: alone [" + expected.error + "], together [" + actual.error + "]";
  if (expected.frames.size() != actual.frames.size())
    return std::to_string(actual.frames.size()) + " frames instead of " +
           std::to_string(expected.frames.size());
  for (size_t i = 0; i < expected.frames.size(); ++i) {
    const FrameFeatures& e = expected.frames[i];
    const FrameFeatures& a = actual.frames[i];
    if (!(e == a))
      return "frame " + std::to_string(i) +
             " differs: " + std::to_string(a.keypoints.size() / sizeof(GstKeypoint)) +
             " keypoints instead of " + std::to_string(e.keypoints.size() / sizeof(GstKeypoint)) +
             (e.descriptors == a.descriptors ? "" : ", descriptors differ");
  }
  return "";
}

std::vector<StreamFeatures> each_alone(const std::vector<StreamSpec>& streams) {
  std::vector<StreamFeatures> alone;
  for (const StreamSpec& s : streams) {
    alone.push_back(run_alone(s));
    EXPECT_EQ(alone.back().error, "") << s.name;
    EXPECT_FALSE(alone.back().frames.empty()) << s.name;
    for (const FrameFeatures& f : alone.back().frames)
      EXPECT_GE(f.method, 0) << s.name << ": a frame without the meta";
  }
  return alone;
}

void expect_each_equal(const std::vector<StreamSpec>& streams,
                       const std::vector<StreamFeatures>& alone,
                       const std::vector<StreamFeatures>& together) {
  ASSERT_EQ(together.size(), streams.size());
  size_t keypoints = 0;
  for (size_t i = 0; i < streams.size(); ++i) {
    EXPECT_EQ(difference(alone[i], together[i]), "")
        << streams[i].name << " (" << streams[i].filter_properties << ")";
    for (const FrameFeatures& f : alone[i].frames)
      keypoints += f.keypoints.size();
  }
  EXPECT_GT(keypoints, 0u) << "nothing was compared";
}

}  // namespace gpusift::testing
