// SPDX-License-Identifier: LGPL-2.1-or-later
#include "pipeline_plan.h"

namespace gpusift::stress {

namespace {

// Gray, the 4:2:0 layouts gpusiftfilter reads through their luma plane, and RGB ones it
// converts: each change of family takes another path through the element.
constexpr const char* kFormats[] = {"GRAY8", "NV12", "I420", "RGBA", "BGRx", "YV12"};

std::string in_flight_property(int frames) {
  return frames == 0 ? "" : " max-frames-in-flight=" + std::to_string(frames);
}

}  // namespace

PipelinePlan plan_pipeline(const StressOptions& options, int index) {
  const int backends = static_cast<int>(options.backends.size());
  const int k = index / backends;  // the pipeline's rank within its backend
  PipelinePlan plan;
  plan.index = index;
  plan.backend = options.backends[index % backends];
  const int variant = k % 4;
  plan.matcher = variant == 1 || variant == 3;
  plan.overlay = variant == 2 || variant == 3;
  plan.source = (k + k / 4) % 2 == 0 ? SourceKind::kScene : SourceKind::kTestSrc;
  constexpr int kInFlight[] = {0, 2, 1};
  plan.frames_in_flight = kInFlight[k % 3];
  return plan;
}

int frames_in_flight_bound(const PipelinePlan& plan) {
  const bool cuda = plan.backend == "cuda";
  const int filter = cuda && plan.frames_in_flight != 1 ? 2 : 1;
  const int tracker = plan.frames_in_flight == 0 ? (cuda ? 2 : 1) : plan.frames_in_flight;
  return filter + tracker;
}

std::string caps_text(const FrameSize& size, const std::string& format) {
  return "video/x-raw,format=" + format + ",width=" + std::to_string(size.width) +
         ",height=" + std::to_string(size.height);
}

const char* const* stress_formats(int* count) {
  *count = static_cast<int>(sizeof kFormats / sizeof kFormats[0]);
  return kFormats;
}

const char* source_name(SourceKind source) {
  return source == SourceKind::kScene ? "scene" : "videotestsrc";
}

std::string pipeline_description(const PipelinePlan& plan, const StressOptions& options) {
  const FrameSize& first = options.sizes.front();
  std::string text;
  if (plan.source == SourceKind::kScene) {
    // The scene is made at the first size in gray; videoscale and videoconvert bring it to
    // whatever the capsfilter asks for, and renegotiate when it changes.
    text = "appsrc name=src format=time stream-type=seekable max-buffers=4 caps=" +
           caps_text(first, "GRAY8") + ",framerate=30/1 ! videoscale ! videoconvert ! ";
  } else {
    // A textured picture that moves: the scrolling pinwheel gives about 650 keypoints at
    // 320x240, nearly all of them tracked from frame to frame. videotestsrc makes every size
    // and format itself, and writes into buffers of gpusiftfilter's pool where it offers one.
    text = "videotestsrc name=src pattern=pinwheel horizontal-speed=2 ! ";
  }
  const std::string backend = " backend=" + plan.backend;
  const std::string in_flight = in_flight_property(plan.frames_in_flight);
  text += "capsfilter name=caps caps=" + caps_text(first, kFormats[0]) +
          " ! gpusiftfilter name=filter descriptor=float" + backend + in_flight +
          " ! keypointtracker name=tracker" + backend + in_flight;
  if (plan.matcher)
    text += " ! keypointmatcher name=matcher" + backend;
  if (plan.overlay)
    text += " ! videoconvert ! keypointoverlay";
  // Unsynchronised: the frames go as fast as the elements take them.
  return text + " ! appsink name=sink sync=false";
}

}  // namespace gpusift::stress
