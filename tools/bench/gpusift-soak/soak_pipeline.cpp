// SPDX-License-Identifier: LGPL-2.1-or-later
#include "soak_pipeline.h"

#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>

#include <atomic>
#include <mutex>

#include "memory_probe.h"
#include "scene_buffer.h"
#include "synthetic_scene.h"

namespace gpusift::soak {

namespace {

constexpr GstClockTime kFrameDuration = GST_SECOND / 30;
// The run fails when no frame reaches the sink for this long.
constexpr gint64 kStallMicroseconds = 120 * G_USEC_PER_SEC;

struct RunState {
  const SoakOptions* options;
  const SyntheticScene* scene;
  long next_frame = 0;  // the source's, on the streaming thread
  gint64 start_us = 0;
  std::atomic<long> frames{0};
  std::atomic<long> frames_without_features{0};
  long keypoints_since_sample = 0;  // the sink's, on the streaming thread
  std::mutex samples_lock;
  std::vector<MemorySample> samples;
};

void on_need_data(GstAppSrc* src, guint, gpointer user_data) {
  auto* state = static_cast<RunState*>(user_data);
  if (state->next_frame >= state->options->frames) {
    gst_app_src_end_of_stream(src);
    return;
  }
  gst_app_src_push_buffer(src,
                          scene_frame_buffer(*state->scene, state->next_frame++, kFrameDuration));
}

void take_sample(RunState* state, long frame) {
  const long interval = frame == 0 ? 1 : state->options->sample_every;
  MemorySample sample{frame, (g_get_monotonic_time() - state->start_us) / 1e6, host_rss_bytes(),
                      device_used_bytes(),
                      frame == 0 ? 0.0
                                 : static_cast<double>(state->keypoints_since_sample) /
                                       static_cast<double>(interval)};
  state->keypoints_since_sample = 0;
  std::lock_guard<std::mutex> lock(state->samples_lock);
  state->samples.push_back(sample);
}

void on_handoff(GstElement*, GstBuffer* buffer, GstPad*, gpointer user_data) {
  auto* state = static_cast<RunState*>(user_data);
  const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(buffer);
  if (meta == nullptr || (meta->n_keypoints > 0 && meta->descriptors == nullptr))
    ++state->frames_without_features;
  else
    state->keypoints_since_sample += meta->n_keypoints;
  const long frame = ++state->frames;
  if (frame % state->options->sample_every == 0)
    take_sample(state, frame);
}

std::string pipeline_description(const SoakOptions& o) {
  return "appsrc name=src format=time max-buffers=4 caps=video/x-raw,format=GRAY8,width=" +
         std::to_string(o.width) + ",height=" + std::to_string(o.height) +
         ",framerate=30/1 ! gpusiftfilter name=f backend=" + o.backend + " method=" + o.method +
         " descriptor=float ! fakesink name=sink sync=false signal-handoffs=true";
}

std::string error_text(GstMessage* message) {
  GError* error = nullptr;
  gchar* debug = nullptr;
  gst_message_parse_error(message, &error, &debug);
  std::string text = error->message;
  if (debug)
    text += std::string(" (") + debug + ")";
  g_clear_error(&error);
  g_free(debug);
  return text;
}

// Waits for EOS or an error, failing when frames stop moving.
std::string wait_for_end(GstElement* pipeline, const RunState& state) {
  GstBus* bus = gst_element_get_bus(pipeline);
  std::string error;
  long last_frames = -1;
  gint64 last_progress_us = g_get_monotonic_time();
  for (;;) {
    GstMessage* m = gst_bus_timed_pop_filtered(
        bus, GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    if (m != nullptr) {
      if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR)
        error = error_text(m);
      gst_message_unref(m);
      break;
    }
    const long frames = state.frames.load();
    if (frames != last_frames) {
      last_frames = frames;
      last_progress_us = g_get_monotonic_time();
    } else if (g_get_monotonic_time() - last_progress_us > kStallMicroseconds) {
      error = "no frame reached the sink for 120 s after frame " + std::to_string(frames);
      break;
    }
  }
  gst_object_unref(bus);
  return error;
}

}  // namespace

SoakResult run_soak(const SoakOptions& options) {
  SoakResult result;
  const SyntheticScene scene(options.width, options.height);
  RunState state;
  state.options = &options;
  state.scene = &scene;

  GError* parse_error = nullptr;
  GstElement* pipeline = gst_parse_launch_full(pipeline_description(options).c_str(), nullptr,
                                               GST_PARSE_FLAG_FATAL_ERRORS, &parse_error);
  if (pipeline == nullptr) {
    result.error = std::string("cannot build the pipeline: ") +
                   (parse_error ? parse_error->message : "unknown error");
    g_clear_error(&parse_error);
    return result;
  }
  GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstAppSrcCallbacks callbacks = {};
  callbacks.need_data = on_need_data;
  gst_app_src_set_callbacks(GST_APP_SRC(src), &callbacks, &state, nullptr);
  gst_object_unref(src);
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  g_signal_connect(sink, "handoff", G_CALLBACK(on_handoff), &state);
  gst_object_unref(sink);

  state.start_us = g_get_monotonic_time();
  take_sample(&state, 0);
  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    result.error = "the pipeline does not start";
  const std::string end = wait_for_end(pipeline, state);
  if (result.error.empty())
    result.error = end;
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);

  result.frames = state.frames.load();
  result.frames_without_features = state.frames_without_features.load();
  result.samples = state.samples;
  return result;
}

}  // namespace gpusift::soak
