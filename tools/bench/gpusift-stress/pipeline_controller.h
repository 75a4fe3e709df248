// SPDX-License-Identifier: LGPL-2.1-or-later
// The thread that drives one pipeline through the run: actions at seeded random times, the bus
// watched in between (errors, warnings, unexpected EOS, stalls), recovery after a failure, and
// a last EOS at the end by which every buffer must be out.
#pragma once

#include <glib.h>

#include <atomic>
#include <string>
#include <vector>

#include "action_gate.h"
#include "action_schedule.h"
#include "stress_pipeline.h"

namespace gpusift::stress {

struct ActionCounts {
  uint64_t caps_changes = 0;
  uint64_t seeks = 0;
  uint64_t pause_cycles = 0;  // PLAYING -> PAUSED -> PLAYING
  uint64_t ready_cycles = 0;  // PLAYING -> READY -> PLAYING
  uint64_t null_restarts = 0;
  uint64_t rebuilds = 0;  // of the NULL restarts, those with a new pipeline
  uint64_t eos_restarts = 0;
  uint64_t recoveries = 0;  // new pipelines after an error, a stall or an unexpected EOS
};

struct PipelineReport {
  PipelinePlan plan;
  LedgerCounts ledger;
  SinkCounts sink;
  ActionCounts actions;
  uint64_t errors = 0;
  uint64_t warnings = 0;
  uint64_t failure_count = 0;         // every failure, of the pipeline and of its ledger
  std::vector<std::string> failures;  // the first few, one line each
  std::vector<std::string> warning_texts;
};

class PipelineController {
 public:
  // The run ends at `deadline_us` (g_get_monotonic_time()).
  PipelineController(const PipelinePlan& plan, const StressOptions& options,
                     const soak::SyntheticScene& scene, const std::string& reference,
                     ActionGate& gate, gint64 deadline_us);

  // The whole run of the pipeline; returns at the deadline, after the last EOS.
  void run();

  // Only once run() has returned.
  PipelineReport report() const;
  bool done() const { return done_; }
  int index() const { return pipeline_.plan().index; }
  // What the pipeline has been doing since when (g_get_monotonic_time()), for a hang's report.
  std::string under_way(gint64* since_us) const;
  // For the sampler, from any thread.
  uint64_t frames_out() const { return pipeline_.ledger().counts().left; }
  uint64_t keypoints_out() const { return pipeline_.sink_counts().keypoints; }

 private:
  void perform(Action action);
  void change_caps();
  void pause_cycle();
  void stop_cycle(GstState stop);
  void eos_restart();
  // Passes `seconds` watching the bus (and for stalls when `playing`).
  void watch(double seconds, bool playing);
  // Waits up to the stall limit for EOS at the sink; false when it did not come.
  bool wait_for_eos();
  // Handles the messages already on the bus.
  void drain();
  void handle(GstMessage* message);
  // A new pipeline in place of a failed one; false when it fails too.
  bool recover();
  void finish();
  void fail(const std::string& text);
  void check(const std::string& problem, const char* during);
  void say(const char* what);
  // Marks the action under way (nullptr: none).
  void doing(const char* what);

  const StressOptions& options_;
  ActionGate& gate_;
  const gint64 deadline_us_;
  const gint64 start_us_;
  StressPipeline pipeline_;
  ActionSchedule schedule_;
  int size_index_ = 0;
  int format_index_ = 0;
  bool expecting_eos_ = false;
  bool eos_seen_ = false;
  bool needs_recovery_ = false;
  bool gave_up_ = false;
  uint64_t last_frames_out_ = 0;
  gint64 last_progress_us_ = 0;
  std::atomic<bool> done_{false};
  std::atomic<const char*> doing_{nullptr};
  std::atomic<gint64> doing_since_us_{0};
  ActionCounts actions_;
  uint64_t errors_ = 0;
  uint64_t warnings_ = 0;
  uint64_t failure_count_ = 0;
  std::vector<std::string> failures_;
  std::vector<std::string> warning_texts_;
};

}  // namespace gpusift::stress
