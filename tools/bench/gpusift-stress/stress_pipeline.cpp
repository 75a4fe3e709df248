// SPDX-License-Identifier: LGPL-2.1-or-later
#include "stress_pipeline.h"

#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/keypoints/gstkeypointstracksmeta.h>

#include "scene_buffer.h"

namespace gpusift::stress {

namespace {

constexpr GstClockTime kFrameDuration = GST_SECOND / 30;

// The number each buffer gets at gpusiftfilter's sink pad travels as a reference timestamp meta
// of these caps: the elements copy it with the buffer's other metas, videoconvert included.
GstCaps* number_caps() {
  static GstCaps* const caps = [] {
    GstCaps* made = gst_caps_new_empty_simple("timestamp/x-gpusift-stress-number");
    // Made once and kept for the process, as static caps are; not a leak for GST_TRACERS=leaks.
    GST_MINI_OBJECT_FLAG_SET(made, GST_MINI_OBJECT_FLAG_MAY_BE_LEAKED);
    return made;
  }();
  return caps;
}

const char* state_name(GstState state) {
  return gst_element_state_get_name(state);
}

// "" when the meta is there and consistent, else what is wrong.
std::string meta_problem(GstBuffer* buffer, guint* keypoints) {
  const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(buffer);
  const GstKeypointsTracksMeta* tracks = gst_buffer_get_keypoints_tracks_meta(buffer);
  GError* error = nullptr;
  std::string problem;
  if (meta == nullptr)
    problem = "no keypoints meta";
  else if (!gst_keypoints_meta_validate(meta, &error))
    problem = std::string("inconsistent keypoints meta: ") + error->message;
  else if (meta->n_keypoints > 0 && meta->descriptors == nullptr)
    problem = "keypoints without descriptors";
  else if (tracks == nullptr)
    problem = "no tracks meta";
  else if (!gst_keypoints_tracks_meta_validate(tracks, &error))
    problem = std::string("inconsistent tracks meta: ") + error->message;
  else if (tracks->n_tracks != meta->n_keypoints)
    problem = std::to_string(tracks->n_tracks) + " tracks for " +
              std::to_string(meta->n_keypoints) + " keypoints";
  g_clear_error(&error);
  *keypoints = meta != nullptr ? meta->n_keypoints : 0;
  return problem;
}

}  // namespace

StressPipeline::StressPipeline(const PipelinePlan& plan, const StressOptions& options,
                               const soak::SyntheticScene& scene, const std::string& reference)
    : plan_(plan),
      options_(options),
      scene_(scene),
      reference_(reference),
      ledger_(frames_in_flight_bound(plan)) {}

StressPipeline::~StressPipeline() {
  tear_down();
}

std::string StressPipeline::build() {
  GError* error = nullptr;
  pipeline_ = gst_parse_launch_full(pipeline_description(plan_, options_).c_str(), nullptr,
                                    GST_PARSE_FLAG_FATAL_ERRORS, &error);
  if (pipeline_ == nullptr) {
    const std::string text = std::string("cannot build the pipeline: ") +
                             (error != nullptr ? error->message : "unknown error");
    g_clear_error(&error);
    return text;
  }
  // The pipeline holds its elements as long as this object holds the pipeline.
  GstBin* bin = GST_BIN(pipeline_);
  src_ = gst_bin_get_by_name(bin, "src");
  caps_ = gst_bin_get_by_name(bin, "caps");
  GstElement* filter = gst_bin_get_by_name(bin, "filter");
  GstElement* sink = gst_bin_get_by_name(bin, "sink");
  gst_object_unref(src_);
  gst_object_unref(caps_);

  // Flush events reach a probe only when asked for by name.
  GstPad* filter_sink = gst_element_get_static_pad(filter, "sink");
  gst_pad_add_probe(
      filter_sink,
      static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
                                   GST_PAD_PROBE_TYPE_EVENT_FLUSH),
      on_filter_sink, this, nullptr);
  gst_object_unref(filter_sink);
  gst_object_unref(filter);

  GstPad* sink_pad = gst_element_get_static_pad(sink, "sink");
  gst_pad_add_probe(sink_pad, GST_PAD_PROBE_TYPE_BUFFER, on_appsink, this, nullptr);
  gst_object_unref(sink_pad);
  GstAppSinkCallbacks sink_callbacks = {};
  sink_callbacks.new_sample = on_new_sample;
  gst_app_sink_set_callbacks(GST_APP_SINK(sink), &sink_callbacks, this, nullptr);
  gst_object_unref(sink);

  if (plan_.matcher) {
    GstElement* matcher = gst_bin_get_by_name(bin, "matcher");
    g_object_set(matcher, "reference", reference_.c_str(), nullptr);
    gst_object_unref(matcher);
  }
  if (plan_.source == SourceKind::kScene) {
    GstAppSrcCallbacks src_callbacks = {};
    src_callbacks.need_data = on_need_data;
    src_callbacks.seek_data = on_seek_data;
    gst_app_src_set_callbacks(GST_APP_SRC(src_), &src_callbacks, this, nullptr);
  }
  return "";
}

std::string StressPipeline::play() {
  if (pipeline_ == nullptr) {
    const std::string problem = build();
    if (!problem.empty())
      return problem;
  }
  return change_state(GST_STATE_PLAYING);
}

std::string StressPipeline::change_state(GstState state) {
  if (pipeline_ == nullptr)
    return "no pipeline";
  GstStateChangeReturn result = gst_element_set_state(pipeline_, state);
  if (result != GST_STATE_CHANGE_FAILURE)
    result = gst_element_get_state(pipeline_, nullptr, nullptr,
                                   static_cast<GstClockTime>(options_.stall_seconds * GST_SECOND));
  if (result == GST_STATE_CHANGE_FAILURE)
    return std::string("the change to ") + state_name(state) + " failed";
  if (result == GST_STATE_CHANGE_ASYNC)
    return std::string("the change to ") + state_name(state) + " did not complete within " +
           std::to_string(static_cast<int>(options_.stall_seconds)) + " s";
  return "";
}

void StressPipeline::tear_down() {
  if (pipeline_ == nullptr)
    return;
  gst_element_set_state(pipeline_, GST_STATE_NULL);
  gst_object_unref(pipeline_);
  pipeline_ = src_ = caps_ = nullptr;
}

std::string StressPipeline::set_caps(const FrameSize& size, const std::string& format) {
  if (pipeline_ == nullptr)
    return "no pipeline";
  GstCaps* caps = gst_caps_from_string(caps_text(size, format).c_str());
  // The capsfilter asks upstream to renegotiate; the stream changes at the source's next frame.
  g_object_set(caps_, "caps", caps, nullptr);
  gst_caps_unref(caps);
  return "";
}

std::string StressPipeline::seek(GstClockTime position) {
  if (pipeline_ == nullptr)
    return "no pipeline";
  if (!gst_element_seek_simple(pipeline_, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH, position))
    return "the seek was refused";
  // A flushing seek makes the sink preroll again before PLAYING resumes.
  const std::string problem = change_state(GST_STATE_PLAYING);
  return problem.empty() ? "" : "after a seek, " + problem;
}

std::string StressPipeline::end_stream() {
  if (pipeline_ == nullptr)
    return "no pipeline";
  // appsrc has its own call; other sources take EOS as an event.
  const bool sent = plan_.source == SourceKind::kScene
                        ? gst_app_src_end_of_stream(GST_APP_SRC(src_)) == GST_FLOW_OK
                        : gst_element_send_event(src_, gst_event_new_eos());
  return sent ? "" : "the source refused EOS";
}

GstMessage* StressPipeline::pop_message(GstClockTime timeout) {
  if (pipeline_ == nullptr) {
    g_usleep(timeout / GST_USECOND);
    return nullptr;
  }
  GstBus* bus = gst_element_get_bus(pipeline_);
  // Messages of other types are dropped as they are passed over.
  GstMessage* message = gst_bus_timed_pop_filtered(
      bus, timeout,
      static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_WARNING | GST_MESSAGE_EOS));
  gst_object_unref(bus);
  return message;
}

SinkCounts StressPipeline::sink_counts() const {
  std::lock_guard<std::mutex> lock(sink_lock_);
  return sink_counts_;
}

void StressPipeline::count_metas(GstBuffer* buffer) {
  guint keypoints = 0;
  const std::string problem = meta_problem(buffer, &keypoints);
  std::lock_guard<std::mutex> lock(sink_lock_);
  sink_counts_.keypoints += keypoints;
  if (problem.empty())
    return;
  if (sink_counts_.frames_without_metas++ == 0)
    sink_counts_.first_missing_meta = problem;
}

GstPadProbeReturn StressPipeline::on_filter_sink(GstPad*, GstPadProbeInfo* info, gpointer data) {
  auto* self = static_cast<StressPipeline*>(data);
  if ((GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_BUFFER) != 0) {
    // A probe may replace the buffer it is given: a shared one is copied (shallowly) first.
    GstBuffer* buffer = gst_buffer_make_writable(GST_PAD_PROBE_INFO_BUFFER(info));
    gst_buffer_add_reference_timestamp_meta(buffer, number_caps(), self->ledger_.enter(),
                                            GST_CLOCK_TIME_NONE);
    GST_PAD_PROBE_INFO_DATA(info) = buffer;
    return GST_PAD_PROBE_OK;
  }
  GstEvent* event = GST_PAD_PROBE_INFO_EVENT(info);
  if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
    std::lock_guard<std::mutex> lock(self->sink_lock_);
    ++self->sink_counts_.renegotiations;
  } else if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP) {
    // FLUSH_STOP is serialised: every buffer before it has entered, none after it yet, and
    // FLUSH_START has already made the elements downstream drop what they held.
    self->ledger_.write_off("flush");
  }
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn StressPipeline::on_appsink(GstPad*, GstPadProbeInfo* info, gpointer data) {
  auto* self = static_cast<StressPipeline*>(data);
  GstBuffer* buffer = GST_PAD_PROBE_INFO_BUFFER(info);
  const GstReferenceTimestampMeta* number =
      gst_buffer_get_reference_timestamp_meta(buffer, number_caps());
  if (number != nullptr)
    self->ledger_.leave(number->timestamp);
  else
    self->ledger_.unnumbered();
  self->count_metas(buffer);
  return GST_PAD_PROBE_OK;
}

GstFlowReturn StressPipeline::on_new_sample(GstAppSink* sink, gpointer) {
  // The tap on the sink pad has counted and checked the buffer already.
  GstSample* sample = gst_app_sink_pull_sample(sink);
  if (sample != nullptr)
    gst_sample_unref(sample);
  return GST_FLOW_OK;
}

void StressPipeline::on_need_data(GstAppSrc* src, guint, gpointer data) {
  auto* self = static_cast<StressPipeline*>(data);
  gst_app_src_push_buffer(
      src, soak::scene_frame_buffer(self->scene_, self->next_frame_++, kFrameDuration));
}

gboolean StressPipeline::on_seek_data(GstAppSrc*, guint64 offset, gpointer data) {
  auto* self = static_cast<StressPipeline*>(data);
  // The first frame at or after the position, so that none falls before the new segment.
  self->next_frame_ = static_cast<long>((offset + kFrameDuration - 1) / kFrameDuration);
  return TRUE;
}

}  // namespace gpusift::stress
