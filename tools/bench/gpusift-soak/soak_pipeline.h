// SPDX-License-Identifier: LGPL-2.1-or-later
// appsrc (the synthetic camera) ! gpusiftfilter ! fakesink, run to the end in this process with
// memory sampled at the sink every N frames.
#pragma once

#include <string>
#include <vector>

#include "memory_series.h"
#include "soak_options.h"

namespace gpusift::soak {

struct SoakResult {
  std::vector<MemorySample> samples;  // the first one before any frame
  long frames = 0;                    // frames that reached the sink
  long frames_without_features = 0;   // no GstKeypointsMeta, or one without descriptors
  std::string error;                  // the pipeline's error, or why the run did not end
};

SoakResult run_soak(const SoakOptions& options);

}  // namespace gpusift::soak
