// SPDX-License-Identifier: LGPL-2.1-or-later
// What each of the N pipelines is made of: its backend, source, downstream elements and frames in
// flight, spread so that every backend gets every combination when there are enough pipelines.
#pragma once

#include <string>

#include "stress_options.h"

namespace gpusift::stress {

enum class SourceKind {
  kScene,    // appsrc with the synthetic panning camera, scaled and converted to the caps
  kTestSrc,  // videotestsrc, which renegotiates itself
};

struct PipelinePlan {
  int index = 0;
  std::string backend;  // "cuda" or "cpu"
  SourceKind source = SourceKind::kScene;
  bool matcher = false;  // keypointmatcher reference=...
  bool overlay = false;  // videoconvert ! keypointoverlay
  // max-frames-in-flight on gpusiftfilter and keypointtracker; 0 leaves the default (auto).
  int frames_in_flight = 0;
};

// Pipeline `index` of the run. Within one backend, pipeline k takes the element variant k % 4
// (tracker only, + matcher, + overlay, + both), alternates the source so that the first eight
// cover every variant with each source, and cycles frames in flight through auto, 2 and 1.
PipelinePlan plan_pipeline(const StressOptions& options, int index);

// The frames that may be lost at a flush or a stop: those the elements may hold at once
// (docs/elements.md, max-frames-in-flight), the one on its way between them included. Only CUDA
// SIFT holds a second frame in gpusiftfilter; keypointtracker holds one on either backend with
// 2, and by default (auto) on CUDA, as these sources are not live.
int frames_in_flight_bound(const PipelinePlan& plan);

// gst_parse_launch text of the pipeline. Elements the program reaches are named: src, caps,
// filter, tracker, matcher, sink. The matcher's reference is set as a property afterwards, so that
// no file name needs quoting.
std::string pipeline_description(const PipelinePlan& plan, const StressOptions& options);

// The capsfilter's caps: raw video of the size and format, no other field.
std::string caps_text(const FrameSize& size, const std::string& format);

// The formats the caps changes pick from; the first is every pipeline's start.
const char* const* stress_formats(int* count);

const char* source_name(SourceKind source);

}  // namespace gpusift::stress
