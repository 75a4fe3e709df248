// SPDX-License-Identifier: LGPL-2.1-or-later
#include "stress_pipeline.h"

#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/keypoints/gstkeypointstracksmeta.h>

#include <chrono>
#include <thread>

namespace gpusift::stress {

namespace {

// Frames the elements may hold back and drop on a flush or stop: gpusiftfilter and
// keypointtracker each keep at most two frames in flight (docs/elements.md).
constexpr uint64_t kMostFramesInFlight = 4;
constexpr int kStallMs = 60000;  // no frame for this long mid-episode is a stall

const char* const kPatterns[] = {"snow", "ball", "pinwheel", "zone-plate", "checkers-8"};
const char* const kFormats[] = {"GRAY8", "NV12", "I420", "BGRx"};
const int kSizes[][2] = {{320, 240}, {640, 360}, {640, 480}, {1280, 720}, {1920, 1080}};
// The CPU backend takes the small sizes only: a 1080p frame of noise costs it seconds.
constexpr size_t kCpuSizes = 2;

}  // namespace

StressPipeline::StressPipeline(const PipelineSetup& setup) : setup_(setup), random_(setup.seed) {
  const std::string matcher = setup.reference.empty()
                                  ? ""
                                  : "keypointmatcher backend=" + setup.backend + " reference=\"" +
                                        setup.reference + "\" ! ";
  const std::string description =
      std::string("videotestsrc name=source pattern=") +
      kPatterns[setup.index % (sizeof kPatterns / sizeof *kPatterns)] +
      " ! capsfilter name=caps ! gpusiftfilter name=filter descriptor=float backend=" +
      setup.backend + " ! keypointtracker backend=" + setup.backend + " ! " + matcher +
      "fakesink name=out sync=false";
  GError* error = nullptr;
  pipeline_ = gst_parse_launch(description.c_str(), &error);
  if (error != nullptr) {
    fail(std::string("cannot build the pipeline: ") + error->message);
    g_error_free(error);
    return;
  }
  source_ = gst_bin_get_by_name(GST_BIN(pipeline_), "source");
  caps_ = gst_bin_get_by_name(GST_BIN(pipeline_), "caps");
  GstElement* filter = gst_bin_get_by_name(GST_BIN(pipeline_), "filter");
  GstElement* out = gst_bin_get_by_name(GST_BIN(pipeline_), "out");
  GstPad* sink = gst_element_get_static_pad(filter, "sink");
  gst_pad_add_probe(sink, GST_PAD_PROBE_TYPE_BUFFER, count_in, this, nullptr);
  gst_object_unref(sink);
  GstPad* last = gst_element_get_static_pad(out, "sink");
  gst_pad_add_probe(last, GST_PAD_PROBE_TYPE_BUFFER, count_out, this, nullptr);
  gst_object_unref(last);
  gst_object_unref(out);
  gst_object_unref(filter);
}

StressPipeline::~StressPipeline() {
  if (pipeline_ != nullptr) {
    gst_element_set_state(pipeline_, GST_STATE_NULL);
    gst_object_unref(source_);
    gst_object_unref(caps_);
    gst_object_unref(pipeline_);
  }
}

GstPadProbeReturn StressPipeline::count_in(GstPad*, GstPadProbeInfo*, gpointer self) {
  static_cast<StressPipeline*>(self)->in_++;
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn StressPipeline::count_out(GstPad*, GstPadProbeInfo* info, gpointer self) {
  auto* p = static_cast<StressPipeline*>(self);
  GstBuffer* buffer = GST_PAD_PROBE_INFO_BUFFER(info);
  if (gst_buffer_get_keypoints_meta(buffer) == nullptr ||
      gst_buffer_get_keypoints_tracks_meta(buffer) == nullptr)
    p->out_without_meta_++;
  p->out_++;
  return GST_PAD_PROBE_OK;
}

void StressPipeline::fail(const std::string& what) {
  counts_.errors++;
  if (counts_.first_error.empty())
    counts_.first_error =
        "pipeline " + std::to_string(setup_.index) + " (" + setup_.backend + "): " + what;
}

void StressPipeline::set_random_caps() {
  const size_t sizes = setup_.backend == "cpu" ? kCpuSizes : sizeof kSizes / sizeof *kSizes;
  const auto& size = kSizes[random_() % sizes];
  const char* format = kFormats[random_() % (sizeof kFormats / sizeof *kFormats)];
  GstCaps* caps = gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, format, "width",
                                      G_TYPE_INT, size[0], "height", G_TYPE_INT, size[1],
                                      "framerate", GST_TYPE_FRACTION, 30, 1, nullptr);
  g_object_set(caps_, "caps", caps, nullptr);
  gst_caps_unref(caps);
}

// Errors and warnings on the bus since the last look.
void StressPipeline::drain_bus() {
  GstBus* bus = gst_element_get_bus(pipeline_);
  while (GstMessage* m = gst_bus_pop_filtered(
             bus, static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))) {
    GError* error = nullptr;
    gchar* debug = nullptr;
    if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) {
      gst_message_parse_error(m, &error, &debug);
      fail(std::string("error: ") + error->message + " (" + (debug ? debug : "") + ")");
    } else {
      gst_message_parse_warning(m, &error, &debug);
      counts_.warnings++;
    }
    g_clear_error(&error);
    g_free(debug);
    gst_message_unref(m);
  }
  gst_object_unref(bus);
}

// Waits until `frames_out` buffers have reached the sink; false on a stall or an error.
bool StressPipeline::wait_for_frames(uint64_t frames_out, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  uint64_t seen = out_;
  auto last_progress = std::chrono::steady_clock::now();
  while (out_ < frames_out) {
    if (stop_ != nullptr && *stop_)
      return false;
    drain_bus();
    if (counts_.errors > 0)
      return false;
    const auto now = std::chrono::steady_clock::now();
    if (out_ != seen) {
      seen = out_;
      last_progress = now;
    }
    if (now > deadline || now - last_progress > std::chrono::milliseconds(kStallMs)) {
      fail("stalled at " + std::to_string(out_.load()) + " of " + std::to_string(frames_out) +
           " frames");
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

// From NULL: a stream of 60 to 240 frames at random caps, and at one or two random frames a
// caps change, a pause cycle, a flushing seek or a restart; then EOS. Every buffer that entered
// must come out, less at most the frames in flight that a flush or stop drops.
void StressPipeline::episode() {
  const uint64_t frames = 60 + random_() % 181;
  g_object_set(source_, "num-buffers", static_cast<gint>(frames), nullptr);
  set_random_caps();
  in_ = 0;
  out_ = 0;
  out_without_meta_ = 0;
  uint64_t allowed_loss = 0;
  if (gst_element_set_state(pipeline_, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
    drain_bus();
    fail("cannot start");
    return;
  }
  const int disruptions = 1 + static_cast<int>(random_() % 2);
  for (int d = 0; d < disruptions && counts_.errors == 0 && !*stop_; ++d) {
    const uint64_t at = out_ + 5 + random_() % 30;
    if (!wait_for_frames(std::min<uint64_t>(at, frames / 2), 300000))
      break;
    switch (random_() % 4) {
      case 0:
        set_random_caps();
        counts_.caps_changes++;
        break;
      case 1:
        gst_element_set_state(pipeline_, GST_STATE_PAUSED);
        gst_element_get_state(pipeline_, nullptr, nullptr, 10 * GST_SECOND);
        gst_element_set_state(pipeline_, GST_STATE_PLAYING);
        counts_.pause_cycles++;
        break;
      case 2:
        // videotestsrc restarts its frame count at the seek target, so the stream continues
        // with the frames after it; the count of buffers in stays what the filter saw.
        gst_element_seek_simple(pipeline_, GST_FORMAT_TIME,
                                static_cast<GstSeekFlags>(GST_SEEK_FLAG_FLUSH), 0);
        allowed_loss += kMostFramesInFlight;
        counts_.seeks++;
        break;
      default:
        gst_element_set_state(pipeline_, GST_STATE_READY);
        gst_element_get_state(pipeline_, nullptr, nullptr, 10 * GST_SECOND);
        gst_element_set_state(pipeline_, GST_STATE_PLAYING);
        allowed_loss += kMostFramesInFlight;
        counts_.restarts++;
        break;
    }
  }
  // Then to EOS, however many frames the source still sends; at the deadline an EOS event ends
  // the episode early (EOS drains the frames in flight, so nothing may be lost to it).
  GstBus* bus = gst_element_get_bus(pipeline_);
  bool eos_sent = false;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(600);
  for (;;) {
    if (stop_ != nullptr && *stop_ && !eos_sent) {
      gst_element_send_event(pipeline_, gst_event_new_eos());
      eos_sent = true;
    }
    GstMessage* end = gst_bus_timed_pop_filtered(
        bus, 100 * GST_MSECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    if (end != nullptr) {
      if (GST_MESSAGE_TYPE(end) == GST_MESSAGE_ERROR) {
        GError* error = nullptr;
        gst_message_parse_error(end, &error, nullptr);
        fail(std::string("error: ") + error->message);
        g_clear_error(&error);
      }
      gst_message_unref(end);
      break;
    }
    if (std::chrono::steady_clock::now() > give_up) {
      fail("no EOS within 600 s");
      break;
    }
  }
  gst_object_unref(bus);
  drain_bus();
  gst_element_set_state(pipeline_, GST_STATE_NULL);
  const uint64_t in = in_, out = out_;
  counts_.frames_in += in;
  counts_.frames_out += out;
  counts_.episodes++;
  if (out > in || in - out > allowed_loss)
    fail(std::to_string(in) + " frames in, " + std::to_string(out) + " out (at most " +
         std::to_string(allowed_loss) + " may be dropped by flushes and stops)");
  if (out_without_meta_ > 0)
    fail(std::to_string(out_without_meta_.load()) + " frames out without their metas");
}

void StressPipeline::run(const std::atomic<bool>& stop) {
  if (pipeline_ == nullptr)
    return;
  stop_ = &stop;
  while (!stop && counts_.errors == 0)
    episode();
}

}  // namespace gpusift::stress
