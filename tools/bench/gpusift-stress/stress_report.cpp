// SPDX-License-Identifier: LGPL-2.1-or-later
#include "stress_report.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace gpusift::stress {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

struct Totals {
  int pipelines = 0;
  uint64_t in = 0, out = 0, lost = 0, renegotiations = 0;
  int most_lost = 0;
  ActionCounts actions;
  uint64_t errors = 0, warnings = 0, failures = 0;

  void add(const PipelineReport& r) {
    ++pipelines;
    in += r.ledger.entered;
    out += r.ledger.left;
    lost += r.ledger.lost_at_flush;
    most_lost = std::max(most_lost, r.ledger.most_lost_at_once);
    renegotiations += r.sink.renegotiations;
    actions.caps_changes += r.actions.caps_changes;
    actions.seeks += r.actions.seeks;
    actions.pause_cycles += r.actions.pause_cycles;
    actions.ready_cycles += r.actions.ready_cycles;
    actions.null_restarts += r.actions.null_restarts;
    actions.rebuilds += r.actions.rebuilds;
    actions.eos_restarts += r.actions.eos_restarts;
    actions.recoveries += r.actions.recoveries;
    errors += r.errors;
    warnings += r.warnings;
    failures += r.failure_count;
  }
};

std::string pair(uint64_t a, uint64_t b) {
  return std::to_string(a) + "/" + std::to_string(b);
}

// One format for the header and the rows, so that they line up.
constexpr const char* kRowFormat = "%-7s %5s %10s %10s %9s %9s %6s %9s %9s %5s %6s %8s %8s\n";

std::string number(uint64_t value) {
  return std::to_string(value);
}

std::string row(const std::string& name, const Totals& t) {
  char text[256];
  std::snprintf(text, sizeof text, kRowFormat, name.c_str(), number(t.pipelines).c_str(),
                number(t.in).c_str(), number(t.out).c_str(),
                (number(t.lost) + "/" + number(t.most_lost)).c_str(),
                pair(t.actions.caps_changes, t.renegotiations).c_str(),
                number(t.actions.seeks).c_str(),
                pair(t.actions.pause_cycles, t.actions.ready_cycles).c_str(),
                pair(t.actions.null_restarts, t.actions.rebuilds).c_str(),
                number(t.actions.eos_restarts).c_str(), number(t.errors).c_str(),
                number(t.warnings).c_str(), number(t.failures).c_str());
  return text;
}

std::string describe(const PipelinePlan& plan) {
  std::string text = "pipeline " + std::to_string(plan.index) + " (" + plan.backend + ", " +
                     source_name(plan.source) + ", tracker";
  if (plan.matcher)
    text += " + matcher";
  if (plan.overlay)
    text += " + overlay";
  return text + ")";
}

}  // namespace

std::string plan_lines(const std::vector<PipelinePlan>& plans) {
  std::string text;
  for (const PipelinePlan& plan : plans) {
    text +=
        "  " + describe(plan) + ", frames in flight " +
        (plan.frames_in_flight == 0 ? std::string("auto") : std::to_string(plan.frames_in_flight)) +
        ", at most " + std::to_string(frames_in_flight_bound(plan)) + " lost at a flush or stop\n";
  }
  return text;
}

std::string backend_table(const std::vector<PipelineReport>& reports) {
  std::map<std::string, Totals> by_backend;
  Totals all;
  for (const PipelineReport& r : reports) {
    by_backend[r.plan.backend].add(r);
    all.add(r);
  }
  char header[256];
  std::snprintf(header, sizeof header, kRowFormat, "backend", "pipes", "frames_in", "frames_out",
                "lost/most", "caps/seen", "seeks", "pause/rdy", "null/new", "eos", "errors",
                "warnings", "failures");
  std::string text = header;
  for (auto it = by_backend.rbegin(); it != by_backend.rend(); ++it)
    text += row(it->first, it->second);
  if (by_backend.size() > 1)
    text += row("all", all);
  return text +
         "lost/most: frames inside at flushes and stops / the most at one; caps/seen: caps changes "
         "/\nCAPS events into gpusiftfilter; pause/rdy: PAUSED and READY cycles; null/new: NULL "
         "restarts / of\nthose, new pipelines; eos: EOS restarts\n";
}

std::string failure_lines(const std::vector<PipelineReport>& reports) {
  std::string text;
  for (const PipelineReport& r : reports) {
    for (const std::string& failure : r.failures)
      text += "FAIL " + describe(r.plan) + ": " + failure + "\n";
    if (r.failure_count > r.failures.size())
      text += "FAIL " + describe(r.plan) + ": and " +
              std::to_string(r.failure_count - r.failures.size()) + " more\n";
    for (const std::string& warning : r.warning_texts)
      text += "warning " + describe(r.plan) + ": " + warning + "\n";
  }
  return text;
}

std::string memory_verdict(const char* what, const soak::SettledSeries& series, bool sampled,
                           double warmup_seconds, double tolerance_mib, bool* flat) {
  char text[320];
  if (!sampled)
    return std::string(what) + ": not measured\n";
  if (!series.measured) {
    std::snprintf(text, sizeof text,
                  "%s: not measured (fewer than 3 samples after the %.0f s warm-up)\n", what,
                  warmup_seconds);
    return text;
  }
  *flat = series.growth <= tolerance_mib * kMiB;
  std::snprintf(text, sizeof text,
                "%s after the %.0f s warm-up, MiB: first %.1f, last %.1f, max %.1f; growth %+.1f "
                "(tolerance %.0f): %s\n",
                what, warmup_seconds, series.first / kMiB, series.last / kMiB,
                series.highest / kMiB, series.growth / kMiB, tolerance_mib,
                *flat ? "flat" : "GROWS");
  return text;
}

}  // namespace gpusift::stress
