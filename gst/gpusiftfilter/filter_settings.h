/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The element's property values and their GParamSpecs, apart from the element's plumbing. */
#pragma once

#include <glib-object.h>

#include "gpusift/extractor.h"
#include "gpusift/method.h"

namespace gpusift::gst {

// The filter's own properties; backend, cuda-device-id, post-messages and max-frames-in-flight
// are the base class's.
struct FilterSettings {
  FeatureConfig features = video_defaults();
  // False while the sigma or max-octaves property is 0 (automatic): features.sift's value then
  // follows upscale.
  ChosenByHand chosen;
  HostFrameAccess host_frame_access = HostFrameAccess::kAuto;
  // The keypoints and descriptors also as GstTensorMeta tensors (builds against GStreamer 1.26
  // and newer with its analytics library; elsewhere the property exists and changes nothing).
  bool analytics = true;

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
  kPropHostFrameAccess,
  kPropAnalytics,
  kPropDistribution,
};

// max-frames-in-flight's blurb: 2 lets the GPU extract a frame while upstream makes the next one
// (one frame more latency). Auto: filter_frames_in_flight.
extern const char* const kFilterFramesInFlightBlurb;

// What max-frames-in-flight becomes once the stream runs, as far as the extractor takes it (CUDA
// SIFT takes two frames, the CPU backend and SURF one): auto is two frames when upstream is not
// live (throughput, at one frame of latency that nobody waits for), else one.
int filter_frames_in_flight(int setting, int extractor_max_in_flight, bool upstream_live);

void install_filter_properties(GObjectClass* klass);
// True when the change needs a new extractor (all feature parameters do; host-frame-access, fixed
// while running, and analytics, read per frame, do not).
bool set_filter_property(FilterSettings* settings, guint id, const GValue* value);
void get_filter_property(const FilterSettings& settings, guint id, GValue* value);

}  // namespace gpusift::gst
