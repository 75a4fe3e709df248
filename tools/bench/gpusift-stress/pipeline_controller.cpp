// SPDX-License-Identifier: LGPL-2.1-or-later
#include "pipeline_controller.h"

#include <algorithm>
#include <cstdio>

namespace gpusift::stress {

namespace {

constexpr size_t kKept = 5;  // failures and warnings kept for the report, per pipeline
constexpr gint64 kPollUs = 100 * 1000;
// Flushing seeks land within the first minute of the stream.
constexpr double kSeekRangeSeconds = 60;

std::string message_text(GstMessage* message) {
  GError* error = nullptr;
  gchar* debug = nullptr;
  if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR)
    gst_message_parse_error(message, &error, &debug);
  else
    gst_message_parse_warning(message, &error, &debug);
  std::string text = std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(message))) + ": " +
                     (error != nullptr ? error->message : "unknown");
  if (debug != nullptr)
    text += std::string(" (") + debug + ")";
  g_clear_error(&error);
  g_free(debug);
  // One line per failure in the report.
  for (char& c : text) {
    if (c == '\n')
      c = ' ';
  }
  return text;
}

}  // namespace

PipelineController::PipelineController(const PipelinePlan& plan, const StressOptions& options,
                                       const soak::SyntheticScene& scene,
                                       const std::string& reference, ActionGate& gate,
                                       gint64 deadline_us)
    : options_(options),
      gate_(gate),
      deadline_us_(deadline_us),
      start_us_(g_get_monotonic_time()),
      pipeline_(plan, options, scene, reference),
      schedule_(options.seed, plan.index, options.action_interval) {}

void PipelineController::run() {
  {
    GateScope scope(gate_);
    doing("the start");
    check(pipeline_.play(), "the start");
    doing(nullptr);
  }
  last_progress_us_ = g_get_monotonic_time();
  for (;;) {
    const gint64 now = g_get_monotonic_time();
    const double left = (deadline_us_ - now) / 1e6;
    if (left <= 0)
      break;
    watch(std::min(schedule_.next_interval(), left), true);
    if (g_get_monotonic_time() >= deadline_us_)
      break;
    GateScope scope(gate_);
    if (!needs_recovery_)
      perform(schedule_.next_action());
    const bool failed_again = needs_recovery_ && !recover();
    doing(nullptr);
    if (failed_again) {
      // A pipeline that fails again as soon as it is new would only repeat the failure.
      fail("gave up on the pipeline: a new one failed too");
      gave_up_ = true;
      break;
    }
    // What an action costs (a new CUDA context, a matcher's reference) is no stall.
    last_progress_us_ = g_get_monotonic_time();
  }
  GateScope scope(gate_);
  finish();
  doing(nullptr);
  done_ = true;
}

void PipelineController::perform(Action action) {
  doing(action_name(action));
  switch (action) {
    case Action::kCapsChange:
      change_caps();
      break;
    case Action::kSeek: {
      ++actions_.seeks;
      const double seconds = schedule_.uniform(0, kSeekRangeSeconds);
      check(pipeline_.seek(static_cast<GstClockTime>(seconds * GST_SECOND)), "a seek");
      break;
    }
    case Action::kPauseCycle:
      pause_cycle();
      break;
    case Action::kReadyCycle:
      ++actions_.ready_cycles;
      stop_cycle(GST_STATE_READY);
      break;
    case Action::kNullRestart:
      ++actions_.null_restarts;
      stop_cycle(GST_STATE_NULL);
      break;
    case Action::kEosRestart:
      eos_restart();
      break;
  }
}

void PipelineController::change_caps() {
  ++actions_.caps_changes;
  int formats = 0;
  const char* const* format_names = stress_formats(&formats);
  const int sizes = static_cast<int>(options_.sizes.size());
  // Any other size and format pair: the size, the format or both change.
  const int current = size_index_ * formats + format_index_;
  int next = schedule_.pick(sizes * formats - 1);
  if (next >= current)
    ++next;
  if (sizes * formats == 1)
    next = 0;
  size_index_ = next / formats;
  format_index_ = next % formats;
  check(pipeline_.set_caps(options_.sizes[size_index_], format_names[format_index_]),
        "a caps change");
}

void PipelineController::pause_cycle() {
  ++actions_.pause_cycles;
  const std::string paused = pipeline_.change_state(GST_STATE_PAUSED);
  if (!paused.empty()) {
    check(paused, "PLAYING to PAUSED");
    return;
  }
  // Long enough for the sink to sit in preroll with frames held upstream.
  watch(schedule_.uniform(0.05, 0.5), false);
  check(pipeline_.change_state(GST_STATE_PLAYING), "PAUSED to PLAYING");
}

void PipelineController::stop_cycle(GstState stop) {
  // Half of the NULL restarts throw the pipeline away and build a new one: elements made and
  // finalised over and over, where a leak per instance would show.
  const bool rebuild = stop == GST_STATE_NULL && schedule_.pick(2) == 0;
  if (rebuild) {
    ++actions_.rebuilds;
    drain();
    pipeline_.tear_down();
    size_index_ = format_index_ = 0;
  } else {
    const std::string stopped = pipeline_.change_state(stop);
    if (!stopped.empty()) {
      check(stopped, stop == GST_STATE_NULL ? "the change to NULL" : "the change to READY");
      return;
    }
  }
  pipeline_.ledger().write_off("stop");
  watch(schedule_.uniform(0.01, 0.2), false);
  check(pipeline_.play(), "a restart");
}

void PipelineController::eos_restart() {
  ++actions_.eos_restarts;
  expecting_eos_ = true;
  eos_seen_ = false;
  check(pipeline_.end_stream(), "EOS");
  if (!needs_recovery_ && wait_for_eos())
    pipeline_.ledger().expect_all_out("EOS");
  expecting_eos_ = false;
  if (needs_recovery_)
    return;
  // After EOS the stream starts again by a flushing seek to the start or by a stop.
  if (schedule_.pick(2) == 0) {
    check(pipeline_.seek(0), "a seek after EOS");
  } else {
    const std::string stopped = pipeline_.change_state(GST_STATE_READY);
    if (!stopped.empty()) {
      check(stopped, "the change to READY after EOS");
      return;
    }
    pipeline_.ledger().write_off("stop after EOS");
    check(pipeline_.play(), "a restart after EOS");
  }
}

bool PipelineController::wait_for_eos() {
  const gint64 end = g_get_monotonic_time() + static_cast<gint64>(options_.stall_seconds * 1e6);
  while (!eos_seen_ && !needs_recovery_ && g_get_monotonic_time() < end)
    handle(pipeline_.pop_message(kPollUs * GST_USECOND));
  if (!eos_seen_ && !needs_recovery_) {
    fail("EOS did not reach the sink within " +
         std::to_string(static_cast<int>(options_.stall_seconds)) + " s");
    needs_recovery_ = true;
  }
  return eos_seen_;
}

void PipelineController::watch(double seconds, bool playing) {
  const gint64 end = g_get_monotonic_time() + static_cast<gint64>(seconds * 1e6);
  do {
    const gint64 now = g_get_monotonic_time();
    const gint64 wait = std::max<gint64>(0, std::min(kPollUs, end - now));
    handle(pipeline_.pop_message(wait * GST_USECOND));
    if (!playing || needs_recovery_)
      continue;
    const uint64_t frames = frames_out();
    if (frames != last_frames_out_) {
      last_frames_out_ = frames;
      last_progress_us_ = g_get_monotonic_time();
    } else if (g_get_monotonic_time() - last_progress_us_ > options_.stall_seconds * 1e6) {
      fail("no buffer left the pipeline for " +
           std::to_string(static_cast<int>(options_.stall_seconds)) + " s");
      needs_recovery_ = true;
    }
  } while (g_get_monotonic_time() < end && !needs_recovery_);
}

void PipelineController::drain() {
  while (GstMessage* message = pipeline_.pop_message(0))
    handle(message);
}

void PipelineController::handle(GstMessage* message) {
  if (message == nullptr)
    return;
  switch (GST_MESSAGE_TYPE(message)) {
    case GST_MESSAGE_ERROR:
      ++errors_;
      fail("error from " + message_text(message));
      needs_recovery_ = true;
      break;
    case GST_MESSAGE_WARNING:
      if (warnings_++ < kKept)
        warning_texts_.push_back(message_text(message));
      break;
    case GST_MESSAGE_EOS:
      if (expecting_eos_) {
        eos_seen_ = true;
      } else {
        fail("EOS that nobody asked for");
        needs_recovery_ = true;
      }
      break;
    default:
      break;
  }
  gst_message_unref(message);
}

bool PipelineController::recover() {
  // A new pipeline in place of the failed one; the failure itself is already counted, so what
  // it stranded inside is written off without a bound.
  doing("a recovery");
  ++actions_.recoveries;
  drain();
  pipeline_.tear_down();
  size_index_ = format_index_ = 0;
  pipeline_.ledger().write_off(nullptr);
  needs_recovery_ = false;
  check(pipeline_.play(), "a restart after a failure");
  drain();
  return !needs_recovery_;
}

void PipelineController::finish() {
  if (gave_up_ || (needs_recovery_ && !recover())) {
    drain();
    pipeline_.tear_down();
    return;
  }
  // Every buffer must be out by the last EOS.
  doing("the last EOS");
  expecting_eos_ = true;
  eos_seen_ = false;
  check(pipeline_.end_stream(), "the last EOS");
  if (!needs_recovery_ && wait_for_eos())
    pipeline_.ledger().expect_all_out("the last EOS");
  drain();
  pipeline_.tear_down();
}

void PipelineController::fail(const std::string& text) {
  if (failure_count_++ < kKept) {
    char when[32];
    std::snprintf(when, sizeof when, "%.1f s: ", (g_get_monotonic_time() - start_us_) / 1e6);
    failures_.push_back(when + text);
  }
}

void PipelineController::check(const std::string& problem, const char* during) {
  if (problem.empty())
    return;
  fail(std::string(during) + ": " + problem);
  needs_recovery_ = true;
}

void PipelineController::doing(const char* what) {
  doing_since_us_ = g_get_monotonic_time();
  doing_ = what;
  if (what != nullptr)
    say(what);
}

std::string PipelineController::under_way(gint64* since_us) const {
  const char* what = doing_;
  *since_us = doing_since_us_;
  return what != nullptr ? what : "waiting for its next action";
}

void PipelineController::say(const char* what) {
  if (!options_.verbose)
    return;
  std::printf("%8.2f s  pipeline %2d (%s): %s\n", (g_get_monotonic_time() - start_us_) / 1e6,
              pipeline_.plan().index, pipeline_.plan().backend.c_str(), what);
  std::fflush(stdout);
}

PipelineReport PipelineController::report() const {
  PipelineReport report;
  report.plan = pipeline_.plan();
  report.ledger = pipeline_.ledger().counts();
  report.sink = pipeline_.sink_counts();
  report.actions = actions_;
  report.errors = errors_;
  report.warnings = warnings_;
  report.failures = failures_;
  for (const std::string& problem : pipeline_.ledger().problems())
    report.failures.push_back(problem);
  if (report.sink.frames_without_metas > 0)
    report.failures.push_back(
        std::to_string(report.sink.frames_without_metas) +
        " buffers out without their metas, the first: " + report.sink.first_missing_meta);
  report.warning_texts = warning_texts_;
  report.failure_count =
      failure_count_ + report.ledger.problems + (report.sink.frames_without_metas > 0 ? 1 : 0);
  return report;
}

}  // namespace gpusift::stress
