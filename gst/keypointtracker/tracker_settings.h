/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* keypointtracker's property values and their GParamSpecs, apart from the element's plumbing. */
#pragma once

#include <glib-object.h>

#include "gpusift/extractor.h"
#include "gpusift/keypoint_tracking.h"

namespace gpusift::gst {

struct TrackerSettings {
  Backend backend = Backend::kAuto;
  int cuda_device_id = -1;
  tracking::TrackerParams params;
  bool post_messages = false;
  // 2: a frame is tracked on a worker thread while upstream makes the next one, and leaves one
  // frame later (added to the reported latency). 0: auto (frames_in_flight_for).
  int max_frames_in_flight = 0;
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
  kTrackerPropBackend,
  kTrackerPropCudaDeviceId,
  kTrackerPropMaxFramesInFlight,
  kTrackerPropPostMessages,  // the last one: the element checks ids against it
};

void install_tracker_properties(GObjectClass* klass);
void set_tracker_property(TrackerSettings* settings, guint id, const GValue* value);
void get_tracker_property(const TrackerSettings& settings, guint id, GValue* value);

}  // namespace gpusift::gst
