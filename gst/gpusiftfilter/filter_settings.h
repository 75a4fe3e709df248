/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The element's property values and their GParamSpecs, apart from the element's plumbing. */
#pragma once

#include <glib-object.h>

#include "gpusift/extractor.h"
#include "gpusift/method.h"

namespace gpusift::gst {

struct FilterSettings {
  Backend backend = Backend::kAuto;
  int cuda_device_id = -1;
  FeatureConfig features = video_defaults();
  // False while the sigma or max-octaves property is 0 (automatic): features.sift's value then
  // follows upscale.
  ChosenByHand chosen;
  bool post_messages = false;
  // 2: the extractor works on a frame while upstream makes the next one, and the frame leaves one
  // frame later (added to the reported latency). 0: auto (filter_frames_in_flight).
  int max_frames_in_flight = 0;
  HostFrameAccess host_frame_access = HostFrameAccess::kAuto;

  // The element's defaults differ from the library's in SIFT's video mode: video wants speed, so
  // the doubled first octave (OpenCV parity) is off unless asked for, a smaller first-octave
  // blur brings back the fine scales it would have given, and the tiny octaves past the fifth
  // are left out.
  static FeatureConfig video_defaults() {
    FeatureConfig config;
    config.sift = video_sift_params();
    return config;
  }

  // Of the method in use (the property sets both methods' fields).
  int max_keypoints() const {
    return features.method == Method::kSurf ? features.surf.max_keypoints
                                            : features.sift.max_keypoints;
  }
};

enum FilterProperty {
  kPropMethod = 1,
  kPropBackend,
  kPropCudaDeviceId,
  kPropNfeatures,
  kPropNOctaveLayers,
  kPropContrastThreshold,
  kPropEdgeThreshold,
  kPropSigma,
  kPropUpscale,
  kPropMaxOctaves,
  kPropDescriptor,
  kPropMaxKeypoints,
  kPropHessianThreshold,
  kPropNOctaves,
  kPropExtended,
  kPropUpright,
  kPropMaxFramesInFlight,
  kPropHostFrameAccess,
  kPropPostMessages,  // the last one: the element checks ids against it
};

// What max-frames-in-flight becomes once the stream runs, as far as the extractor takes it (CUDA
// SIFT takes two frames, the CPU backend and SURF one): auto is two frames when upstream is not
// live (throughput, at one frame of latency that nobody waits for), else one.
int filter_frames_in_flight(int setting, int extractor_max_in_flight, bool upstream_live);

void install_filter_properties(GObjectClass* klass);
// "GstGpusiftBackend": auto, cuda, cpu; shared by the elements that take a backend.
GType backend_enum_type();
// True when the change needs a new extractor (all feature parameters do).
bool set_filter_property(FilterSettings* settings, guint id, const GValue* value);
void get_filter_property(const FilterSettings& settings, guint id, GValue* value);

}  // namespace gpusift::gst
