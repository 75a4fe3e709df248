// SPDX-License-Identifier: LGPL-2.1-or-later
// The end of a run on stdout: a table per backend, the memory verdicts and series, and every
// failure by pipeline.
#pragma once

#include <string>
#include <vector>

#include "memory_series.h"
#include "pipeline_controller.h"
#include "stress_options.h"

namespace gpusift::stress {

// One line per pipeline: what it is made of and how many frames it may lose at a flush.
std::string plan_lines(const std::vector<PipelinePlan>& plans);

// The table: per backend and in all, pipelines, frames in and out, frames lost at flushes and
// stops (the most at once), caps changes (CAPS events seen by gpusiftfilter), seeks, state
// cycles (PAUSED/READY), restarts (NULL; new pipelines), EOS restarts, errors, warnings,
// failures.
std::string backend_table(const std::vector<PipelineReport>& reports);

// The failures and the first warnings, by pipeline; "" when there are none.
std::string failure_lines(const std::vector<PipelineReport>& reports);

// "host RSS" or "GPU used" after the warm-up: first, last and largest sample, the growth and its
// verdict. *flat is false when the growth passes the tolerance. `sampled`: any sample measured
// at all (not so for the device without a GPU or a CUDA build).
std::string memory_verdict(const char* what, const soak::SettledSeries& series, bool sampled,
                           double warmup_seconds, double tolerance_mib, bool* flat);

}  // namespace gpusift::stress
