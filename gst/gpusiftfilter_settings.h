/* The element's property values and their GParamSpecs, apart from the element's plumbing. */
#pragma once

#include <glib-object.h>

#include "gpusift/extractor.h"
#include "gpusift/sift_params.h"

namespace gpusift::gst {

enum class Method { kSift = 0 };

struct FilterSettings {
  Method method = Method::kSift;
  Backend backend = Backend::kAuto;
  int cuda_device_id = -1;
  SiftParams sift = video_defaults();
  bool post_messages = false;

  // The element defaults differ from the library's in one way: video wants speed, so the
  // doubled first octave (OpenCV parity) is off unless asked for.
  static SiftParams video_defaults() {
    SiftParams p;
    p.upscale = false;
    return p;
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
  kPropDescriptor,
  kPropMaxKeypoints,
  kPropPostMessages,
};

void install_filter_properties(GObjectClass* klass);
// True when the change needs a new extractor (all SIFT parameters do).
bool set_filter_property(FilterSettings* settings, guint id, const GValue* value);
void get_filter_property(const FilterSettings& settings, guint id, GValue* value);

}  // namespace gpusift::gst
