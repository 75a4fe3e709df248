// SPDX-License-Identifier: LGPL-2.1-or-later
// One pipeline of the stress run and what it can be made to do: its elements, the taps on
// gpusiftfilter's sink pad and the appsink's that feed its BufferLedger, its source, and the
// state changes, caps changes, seeks and EOS that the controller asks for. Each call returns ""
// or what went wrong in one line; none takes longer than the stall limit.
#pragma once

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>

#include <atomic>
#include <mutex>
#include <string>

#include "buffer_ledger.h"
#include "pipeline_plan.h"
#include "stress_options.h"
#include "synthetic_scene.h"

namespace gpusift::stress {

// What the taps saw besides the numbers.
struct SinkCounts {
  uint64_t renegotiations = 0;        // CAPS events into gpusiftfilter
  uint64_t frames_without_metas = 0;  // no valid keypoints meta or tracks meta
  uint64_t keypoints = 0;             // over every buffer out
  std::string first_missing_meta;     // why the first such frame failed
};

class StressPipeline {
 public:
  StressPipeline(const PipelinePlan& plan, const StressOptions& options,
                 const soak::SyntheticScene& scene, const std::string& reference);
  ~StressPipeline();
  StressPipeline(const StressPipeline&) = delete;
  StressPipeline& operator=(const StressPipeline&) = delete;

  // Builds the pipeline when there is none (its caps the first size and format) and brings it
  // to PLAYING.
  std::string play();
  // Sets a state and waits for it.
  std::string change_state(GstState state);
  // NULL, and the pipeline dropped: the next play() builds a new one.
  void tear_down();

  std::string set_caps(const FrameSize& size, const std::string& format);
  // A flushing seek in time; waits until the pipeline has settled again.
  std::string seek(GstClockTime position);
  // EOS from the source; the controller waits for it on the bus.
  std::string end_stream();

  // The next ERROR, WARNING or EOS of the bus within `timeout`, or nullptr.
  GstMessage* pop_message(GstClockTime timeout);

  BufferLedger& ledger() { return ledger_; }
  const BufferLedger& ledger() const { return ledger_; }
  SinkCounts sink_counts() const;
  const PipelinePlan& plan() const { return plan_; }

 private:
  static GstPadProbeReturn on_filter_sink(GstPad* pad, GstPadProbeInfo* info, gpointer self);
  static GstPadProbeReturn on_appsink(GstPad* pad, GstPadProbeInfo* info, gpointer self);
  static void on_need_data(GstAppSrc* src, guint length, gpointer self);
  static gboolean on_seek_data(GstAppSrc* src, guint64 offset, gpointer self);
  static GstFlowReturn on_new_sample(GstAppSink* sink, gpointer self);
  std::string build();
  void count_metas(GstBuffer* buffer);

  const PipelinePlan plan_;
  const StressOptions& options_;
  const soak::SyntheticScene& scene_;
  const std::string reference_;
  GstElement* pipeline_ = nullptr;
  GstElement* src_ = nullptr;   // borrowed from pipeline_
  GstElement* caps_ = nullptr;  // borrowed from pipeline_
  BufferLedger ledger_;
  // The scene's next frame; the appsrc's streaming thread and its seeks move it.
  std::atomic<long> next_frame_{0};
  mutable std::mutex sink_lock_;
  SinkCounts sink_counts_;
};

}  // namespace gpusift::stress
