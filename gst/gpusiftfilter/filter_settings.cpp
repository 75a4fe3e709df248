// SPDX-License-Identifier: LGPL-2.1-or-later
#include "filter_settings.h"

#include <gst/gst.h>

#include <algorithm>

#include "base/static_enum.h"

namespace gpusift::gst {

namespace {

GType method_enum_type() {
  static GType type = 0;
  static const GEnumValue values[] = {
      {static_cast<gint>(Method::kSift), "SIFT (Lowe 2004, OpenCV 4 semantics)", "sift"},
      {static_cast<gint>(Method::kSurf), "SURF (Bay et al. 2008, OpenCV conventions)", "surf"},
      {0, nullptr, nullptr},
  };
  return static_enum_type(&type, "GstGpusiftMethod", values);
}

GType descriptor_enum_type() {
  static GType type = 0;
  static const GEnumValue values[] = {
      {static_cast<gint>(DescriptorFormat::kNone), "Keypoints only", "none"},
      {static_cast<gint>(DescriptorFormat::kFloat), "float32, unit L2 norm", "float"},
      {static_cast<gint>(DescriptorFormat::kUint8), "uint8, OpenCV's bytes (SIFT only)", "uint8"},
      {static_cast<gint>(DescriptorFormat::kRootSift), "float32 RootSIFT (SIFT only)", "rootsift"},
      {0, nullptr, nullptr},
  };
  return static_enum_type(&type, "GstGpusiftDescriptor", values);
}

GType host_frame_access_enum_type() {
  static GType type = 0;
  static const GEnumValue values[] = {
      {static_cast<gint>(HostFrameAccess::kAuto), "mapped on integrated GPUs (Jetson), else copy",
       "auto"},
      {static_cast<gint>(HostFrameAccess::kCopy), "Upload each frame into device memory", "copy"},
      {static_cast<gint>(HostFrameAccess::kMapped),
       "Kernels read pinned frames in place (pageable ones after a copy into pinned memory)",
       "mapped"},
      {0, nullptr, nullptr},
  };
  return static_enum_type(&type, "GstGpusiftHostFrameAccess", values);
}

constexpr GParamFlags kAnyState = static_cast<GParamFlags>(
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
constexpr GParamFlags kReadyOnly =
    static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

static_assert(kMaxOctaveLayers == kSurfMaxOctaveLayers, "one n-octave-layers range for both");
constexpr double kMaxHessianThreshold = 1e6;

void install_surf_properties(GObjectClass* klass) {
  const SurfParams d = FilterSettings::video_defaults().surf;
  g_object_class_install_property(
      klass, kPropHessianThreshold,
      g_param_spec_double("hessian-threshold", "Hessian threshold",
                          "SURF: minimum determinant of the box-filter Hessian (OpenCV's units)",
                          0.0, kMaxHessianThreshold, d.hessian_threshold, kAnyState));
  g_object_class_install_property(
      klass, kPropNOctaves,
      g_param_spec_int("n-octaves", "Octaves", "SURF: number of octaves", 1, kSurfMaxOctaves,
                       d.n_octaves, kAnyState));
  g_object_class_install_property(
      klass, kPropExtended,
      g_param_spec_boolean("extended", "Extended", "SURF: 128-value descriptors instead of 64",
                           d.extended, kAnyState));
  g_object_class_install_property(
      klass, kPropUpright,
      g_param_spec_boolean("upright", "Upright",
                           "SURF: no orientation, every angle is 270 (faster)", d.upright,
                           kAnyState));
}

}  // namespace

void install_filter_properties(GObjectClass* klass) {
  const SiftParams d = FilterSettings::video_defaults().sift;
  g_object_class_install_property(
      klass, kPropMethod,
      g_param_spec_enum("method", "Method", "Feature detector and descriptor", method_enum_type(),
                        static_cast<gint>(Method::kSift), kReadyOnly));
  g_object_class_install_property(
      klass, kPropNfeatures,
      g_param_spec_int("nfeatures", "Number of features",
                       "Keep the N strongest keypoints by response; 0 keeps all", 0, G_MAXINT,
                       d.nfeatures, kAnyState));
  g_object_class_install_property(
      klass, kPropNOctaveLayers,
      g_param_spec_int("n-octave-layers", "Octave layers",
                       "Layers per octave of the scale space (SIFT and SURF)", 1, kMaxOctaveLayers,
                       d.n_octave_layers, kAnyState));
  g_object_class_install_property(klass, kPropContrastThreshold,
                                  g_param_spec_double("contrast-threshold", "Contrast threshold",
                                                      "SIFT: minimum DoG contrast (OpenCV's units)",
                                                      0.0, 10.0, d.contrast_threshold, kAnyState));
  g_object_class_install_property(
      klass, kPropEdgeThreshold,
      g_param_spec_double("edge-threshold", "Edge threshold",
                          "SIFT: maximum principal curvature ratio (OpenCV's units)", 1e-3, 1000.0,
                          d.edge_threshold, kAnyState));
  g_object_class_install_property(
      klass, kPropSigma,
      g_param_spec_double("sigma", "Sigma",
                          "SIFT: Gaussian blur of the first octave, at least 0.5; 0: automatic, "
                          "1.6 with upscale (OpenCV's) and 0.8 without (the video mode)",
                          0.0, 4.0, 0.0, kAnyState));
  g_object_class_install_property(
      klass, kPropUpscale,
      g_param_spec_boolean(
          "upscale", "Upscale",
          "SIFT: double the frame for the first octave as OpenCV does (parity with "
          "cv::SIFT, about 2-3x slower); off by default for video",
          d.upscale, kAnyState));
  g_object_class_install_property(
      klass, kPropMaxOctaves,
      g_param_spec_int("max-octaves", "Maximum octaves",
                       "SIFT: build at most this many octaves; 0: automatic, OpenCV's count with "
                       "upscale and 5 without (the video mode, as CudaSift); a number past the "
                       "frame's count takes them all",
                       0, G_MAXINT, 0, kAnyState));
  g_object_class_install_property(
      klass, kPropDescriptor,
      g_param_spec_enum("descriptor", "Descriptor",
                        "Descriptor format in the meta; SURF takes float or none",
                        descriptor_enum_type(), static_cast<gint>(d.descriptor), kAnyState));
  g_object_class_install_property(
      klass, kPropMaxKeypoints,
      g_param_spec_int("max-keypoints", "Maximum keypoints",
                       "Capacity of the keypoint list; past it the strongest are kept and a "
                       "warning is posted",
                       1, 1 << 22, d.max_keypoints, kAnyState));
  install_surf_properties(klass);
  g_object_class_install_property(
      klass, kPropHostFrameAccess,
      g_param_spec_enum("host-frame-access", "Host frame access",
                        "CUDA backend, frames in system memory: upload them (copy), or let the "
                        "kernels read them where they are (mapped; no upload where CPU and GPU "
                        "share memory, and the frames in the pinned pool offered upstream need no "
                        "copy at all); auto maps on integrated GPUs",
                        host_frame_access_enum_type(), static_cast<gint>(HostFrameAccess::kAuto),
                        kReadyOnly));
}

const char* const kFilterFramesInFlightBlurb =
    "1: each frame leaves once its features are extracted. 2: the GPU extracts a frame while "
    "upstream makes the next one, and the frame leaves one frame later (more throughput, one "
    "frame more latency; CUDA SIFT only, else 1). 0: auto, 2 on the CUDA SIFT backend when "
    "upstream is not live, else 1";

// nfeatures, n-octave-layers, descriptor and max-keypoints apply to both methods: they are
// written to both parameter sets (whose defaults agree) and read back from SIFT's.
bool set_filter_property(FilterSettings* s, guint id, const GValue* value) {
  SiftParams& sift = s->features.sift;
  SurfParams& surf = s->features.surf;
  switch (id) {
    case kPropMethod:
      s->features.method = static_cast<Method>(g_value_get_enum(value));
      return true;
    case kPropNfeatures:
      sift.nfeatures = surf.nfeatures = g_value_get_int(value);
      return true;
    case kPropNOctaveLayers:
      sift.n_octave_layers = surf.n_octave_layers = g_value_get_int(value);
      return true;
    case kPropContrastThreshold:
      sift.contrast_threshold = static_cast<float>(g_value_get_double(value));
      return true;
    case kPropEdgeThreshold:
      sift.edge_threshold = static_cast<float>(g_value_get_double(value));
      return true;
    case kPropSigma:
      sift.sigma = static_cast<float>(g_value_get_double(value));
      s->chosen.sigma = sift.sigma != 0.f;
      apply_upscale_defaults(&sift, s->chosen);
      return true;
    case kPropUpscale:
      sift.upscale = g_value_get_boolean(value);
      apply_upscale_defaults(&sift, s->chosen);
      return true;
    case kPropMaxOctaves:
      sift.max_octaves = g_value_get_int(value);
      s->chosen.max_octaves = sift.max_octaves != 0;
      apply_upscale_defaults(&sift, s->chosen);
      return true;
    case kPropDescriptor:
      sift.descriptor = surf.descriptor = static_cast<DescriptorFormat>(g_value_get_enum(value));
      return true;
    case kPropMaxKeypoints:
      sift.max_keypoints = surf.max_keypoints = g_value_get_int(value);
      return true;
    case kPropHessianThreshold:
      surf.hessian_threshold = g_value_get_double(value);
      return true;
    case kPropNOctaves:
      surf.n_octaves = g_value_get_int(value);
      return true;
    case kPropExtended:
      surf.extended = g_value_get_boolean(value);
      return true;
    case kPropUpright:
      surf.upright = g_value_get_boolean(value);
      return true;
    case kPropHostFrameAccess:
      s->host_frame_access = static_cast<HostFrameAccess>(g_value_get_enum(value));
      return false;
  }
  return false;
}

int filter_frames_in_flight(int setting, int extractor_max_in_flight, bool upstream_live) {
  const int wanted = setting > 0 ? setting : (upstream_live ? 1 : 2);
  return std::min(wanted, extractor_max_in_flight);
}

void get_filter_property(const FilterSettings& s, guint id, GValue* value) {
  const SiftParams& sift = s.features.sift;
  const SurfParams& surf = s.features.surf;
  switch (id) {
    case kPropMethod:
      g_value_set_enum(value, static_cast<gint>(s.features.method));
      break;
    case kPropNfeatures:
      g_value_set_int(value, sift.nfeatures);
      break;
    case kPropNOctaveLayers:
      g_value_set_int(value, sift.n_octave_layers);
      break;
    case kPropContrastThreshold:
      g_value_set_double(value, sift.contrast_threshold);
      break;
    case kPropEdgeThreshold:
      g_value_set_double(value, sift.edge_threshold);
      break;
    case kPropSigma:
      g_value_set_double(value, s.chosen.sigma ? sift.sigma : 0.0);
      break;
    case kPropUpscale:
      g_value_set_boolean(value, sift.upscale);
      break;
    case kPropMaxOctaves:
      g_value_set_int(value, s.chosen.max_octaves ? sift.max_octaves : 0);
      break;
    case kPropDescriptor:
      g_value_set_enum(value, static_cast<gint>(sift.descriptor));
      break;
    case kPropMaxKeypoints:
      g_value_set_int(value, sift.max_keypoints);
      break;
    case kPropHessianThreshold:
      g_value_set_double(value, surf.hessian_threshold);
      break;
    case kPropNOctaves:
      g_value_set_int(value, surf.n_octaves);
      break;
    case kPropExtended:
      g_value_set_boolean(value, surf.extended);
      break;
    case kPropUpright:
      g_value_set_boolean(value, surf.upright);
      break;
    case kPropHostFrameAccess:
      g_value_set_enum(value, static_cast<gint>(s.host_frame_access));
      break;
  }
}

}  // namespace gpusift::gst
