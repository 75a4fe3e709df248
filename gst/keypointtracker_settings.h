/* keypointtracker's property values and their GParamSpecs, apart from the element's plumbing. */
#pragma once

#include <glib-object.h>

#include "gpusift/extractor.h"
#include "keypoint_tracking.h"

namespace gpusift::gst {

struct TrackerSettings {
  Backend backend = Backend::kAuto;
  int cuda_device_id = -1;
  tracking::TrackerParams params;
  bool post_messages = false;
  // 2: a frame's matching runs on the GPU while the upstream elements make the next frame, and
  // the frame leaves one frame later (added to the reported latency).
  int max_frames_in_flight = 1;
};

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
