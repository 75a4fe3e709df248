// SPDX-License-Identifier: LGPL-2.1-or-later
// One stressed pipeline: videotestsrc ! capsfilter ! gpusiftfilter ! keypointtracker
// [! keypointmatcher] ! fakesink on one backend, run episode after episode until a deadline, with
// caps changes, pause cycles, flushing seeks and restarts mixed in at seeded random moments.
#pragma once

#include <gst/gst.h>

#include <atomic>
#include <cstdint>
#include <random>
#include <string>

namespace gpusift::stress {

struct PipelineCounts {
  uint64_t frames_in = 0;   // buffers into gpusiftfilter
  uint64_t frames_out = 0;  // buffers at the sink
  uint64_t episodes = 0;
  uint64_t caps_changes = 0;
  uint64_t pause_cycles = 0;
  uint64_t seeks = 0;
  uint64_t restarts = 0;  // PLAYING -> READY -> PLAYING mid-episode
  uint64_t errors = 0;    // bus errors, missing metas, lost buffers, stalls
  uint64_t warnings = 0;
  std::string first_error;
};

struct PipelineSetup {
  int index = 0;
  std::string backend;    // cpu or cuda
  std::string reference;  // an image for keypointmatcher, or empty for none
  uint32_t seed = 1;
};

class StressPipeline {
 public:
  explicit StressPipeline(const PipelineSetup& setup);
  ~StressPipeline();
  StressPipeline(const StressPipeline&) = delete;
  StressPipeline& operator=(const StressPipeline&) = delete;

  // Episodes until `stop` is set; the counts are final once it returns.
  void run(const std::atomic<bool>& stop);
  const PipelineCounts& counts() const { return counts_; }
  const PipelineSetup& setup() const { return setup_; }

 private:
  void episode();
  void set_random_caps();
  bool wait_for_frames(uint64_t frames_out, int timeout_ms);
  void fail(const std::string& what);
  void drain_bus();
  static GstPadProbeReturn count_in(GstPad* pad, GstPadProbeInfo* info, gpointer self);
  static GstPadProbeReturn count_out(GstPad* pad, GstPadProbeInfo* info, gpointer self);

  PipelineSetup setup_;
  PipelineCounts counts_;
  std::mt19937 random_;
  GstElement* pipeline_ = nullptr;
  GstElement* source_ = nullptr;
  GstElement* caps_ = nullptr;
  std::atomic<uint64_t> in_{0};
  std::atomic<uint64_t> out_{0};
  std::atomic<uint64_t> out_without_meta_{0};
  const std::atomic<bool>* stop_ = nullptr;  // set by run()
};

}  // namespace gpusift::stress
