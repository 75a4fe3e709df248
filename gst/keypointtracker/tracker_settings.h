/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* keypointtracker's property values and their GParamSpecs, apart from the element's plumbing. */
#pragma once

#include <glib-object.h>

#include "gpusift/extractor.h"
#include "gpusift/keypoint_tracking.h"

namespace gpusift::gst {

// The tracker's own properties; backend, cuda-device-id, post-messages and max-frames-in-flight
// are the base class's.
struct TrackerSettings {
  tracking::TrackerParams params;
};

// What max-frames-in-flight=auto becomes once the stream runs: two frames on the GPU backend
// when upstream is not live (throughput, at one frame of latency that nobody waits for), else
// one. Explicit settings stay as they are.
int frames_in_flight_for(int setting, Backend backend, bool upstream_live);

enum TrackerProperty {
  kTrackerPropRatio = 1,
  kTrackerPropCrossCheck,
  kTrackerPropMotionModel,
  kTrackerPropRansacThreshold,
  kTrackerPropMaxMissed,
  kTrackerPropKeyframeInterval,
};

// max-frames-in-flight's blurb.
extern const char* const kTrackerFramesInFlightBlurb;

void install_tracker_properties(GObjectClass* klass);
void set_tracker_property(TrackerSettings* settings, guint id, const GValue* value);
void get_tracker_property(const TrackerSettings& settings, guint id, GValue* value);

}  // namespace gpusift::gst
