// SPDX-License-Identifier: LGPL-2.1-or-later
#include "filter_settings.h"

#include <gst/gst.h>

#include <algorithm>

#include "base/property_field.h"
#include "base/static_enum.h"

namespace gpusift::gst {

namespace {

// The element class's properties, each with the field that holds it.
PropertyTable<FilterSettings>& filter_properties() {
  static PropertyTable<FilterSettings> table;
  return table;
}

GType method_enum_type() {
  return static_enum_type<Method>(
      "GstGpusiftMethod", {
                              {Method::kSift, "SIFT (Lowe 2004, OpenCV 4 semantics)", "sift"},
                              {Method::kSurf, "SURF (Bay et al. 2008, OpenCV conventions)", "surf"},
                          });
}

GType descriptor_enum_type() {
  return static_enum_type<DescriptorFormat>(
      "GstGpusiftDescriptor",
      {
          {DescriptorFormat::kNone, "Keypoints only", "none"},
          {DescriptorFormat::kFloat, "float32, unit L2 norm", "float"},
          {DescriptorFormat::kUint8, "uint8, OpenCV's bytes (SIFT only)", "uint8"},
          {DescriptorFormat::kRootSift, "float32 RootSIFT (SIFT only)", "rootsift"},
      });
}

GType distribution_enum_type() {
  return static_enum_type<KeypointDistribution>(
      "GstGpusiftDistribution",
      {
          {KeypointDistribution::kGlobal, "The strongest of the whole frame", "global"},
          {KeypointDistribution::kGrid,
           "Spread over a grid of cells sized from nfeatures and the frame: each cell's "
           "strongest, round by round",
           "grid"},
      });
}

GType host_frame_access_enum_type() {
  return static_enum_type<HostFrameAccess>(
      "GstGpusiftHostFrameAccess",
      {
          {HostFrameAccess::kAuto, "mapped on integrated GPUs (Jetson), else copy", "auto"},
          {HostFrameAccess::kCopy, "Upload each frame into device memory", "copy"},
          {HostFrameAccess::kMapped,
           "Kernels read pinned frames in place (pageable ones after a copy into pinned memory)",
           "mapped"},
      });
}

static_assert(kMaxOctaveLayers == kSurfMaxOctaveLayers, "one n-octave-layers range for both");
constexpr double kMaxHessianThreshold = 1e6;

void install_surf_properties(GObjectClass* klass) {
  const SurfParams d = FilterSettings::video_defaults().surf;
  filter_properties().install(
      klass, kPropHessianThreshold,
      g_param_spec_double("hessian-threshold", "Hessian threshold",
                          "SURF: minimum determinant of the box-filter Hessian (OpenCV's units)",
                          0.0, kMaxHessianThreshold, d.hessian_threshold, kMutablePlaying),
      [](FilterSettings& s) { return PropertyField(&s.features.surf.hessian_threshold); });
  filter_properties().install(
      klass, kPropNOctaves,
      g_param_spec_int("n-octaves", "Octaves", "SURF: number of octaves", 1, kSurfMaxOctaves,
                       d.n_octaves, kMutablePlaying),
      [](FilterSettings& s) { return PropertyField(&s.features.surf.n_octaves); });
  filter_properties().install(
      klass, kPropExtended,
      g_param_spec_boolean("extended", "Extended", "SURF: 128-value descriptors instead of 64",
                           d.extended, kMutablePlaying),
      [](FilterSettings& s) { return PropertyField(&s.features.surf.extended); });
  filter_properties().install(
      klass, kPropUpright,
      g_param_spec_boolean("upright", "Upright",
                           "SURF: no orientation, every angle is 270 (faster)", d.upright,
                           kMutablePlaying),
      [](FilterSettings& s) { return PropertyField(&s.features.surf.upright); });
}

}  // namespace

void install_filter_properties(GObjectClass* klass) {
  const SiftParams d = FilterSettings::video_defaults().sift;
  filter_properties().install(
      klass, kPropMethod,
      // Applies at the next frame: the frames in flight leave first, then a new extractor.
      g_param_spec_enum("method", "Method", "Feature detector and descriptor", method_enum_type(),
                        static_cast<gint>(Method::kSift), kMutablePlaying),
      [](FilterSettings& s) { return PropertyField(&s.features.method); });
  filter_properties().install(
      klass, kPropNfeatures,
      g_param_spec_int("nfeatures", "Number of features",
                       "Keep the N strongest keypoints by response; 0 keeps all", 0, G_MAXINT,
                       d.nfeatures, kMutablePlaying),
      [](FilterSettings& s) { return PropertyField(&s.features.sift.nfeatures); });
  filter_properties().install(
      klass, kPropDistribution,
      g_param_spec_enum("distribution", "Distribution",
                        "How nfeatures spreads over the frame: the strongest of the whole frame "
                        "(global), or each cell's strongest over a grid of about nfeatures/4 "
                        "cells, round by round (grid: keypoints for trackers, not bunched on "
                        "texture); no effect without nfeatures",
                        distribution_enum_type(), static_cast<gint>(d.distribution),
                        kMutablePlaying),
      [](FilterSettings& s) { return PropertyField(&s.features.sift.distribution); });
  filter_properties().install(
      klass, kPropNOctaveLayers,
      g_param_spec_int("n-octave-layers", "Octave layers",
                       "Layers per octave of the scale space (SIFT and SURF)", 1, kMaxOctaveLayers,
                       d.n_octave_layers, kMutablePlaying),
      [](FilterSettings& s) { return PropertyField(&s.features.sift.n_octave_layers); });
  filter_properties().install(
      klass, kPropContrastThreshold,
      g_param_spec_double("contrast-threshold", "Contrast threshold",
                          "SIFT: minimum DoG contrast (OpenCV's units)", 0.0, 10.0,
                          d.contrast_threshold, kMutablePlaying),
      [](FilterSettings& s) { return PropertyField(&s.features.sift.contrast_threshold); });
  filter_properties().install(
      klass, kPropEdgeThreshold,
      g_param_spec_double("edge-threshold", "Edge threshold",
                          "SIFT: maximum principal curvature ratio (OpenCV's units)", 1e-3, 1000.0,
                          d.edge_threshold, kMutablePlaying),
      [](FilterSettings& s) { return PropertyField(&s.features.sift.edge_threshold); });
  filter_properties().install(
      klass, kPropSigma,
      g_param_spec_double("sigma", "Sigma",
                          "SIFT: Gaussian blur of the first octave, at least 0.5; 0: automatic, "
                          "1.6 with upscale (OpenCV's) and 0.8 without (the video mode)",
                          0.0, 4.0, 0.0, kMutablePlaying),
      [](FilterSettings& s) { return PropertyField(&s.features.sift.sigma); });
  filter_properties().install(
      klass, kPropUpscale,
      g_param_spec_boolean(
          "upscale", "Upscale",
          "SIFT: double the frame for the first octave as OpenCV does (parity with "
          "cv::SIFT, about 2-3x slower); off by default for video",
          d.upscale, kMutablePlaying),
      [](FilterSettings& s) { return PropertyField(&s.features.sift.upscale); });
  filter_properties().install(
      klass, kPropMaxOctaves,
      g_param_spec_int("max-octaves", "Maximum octaves",
                       "SIFT: build at most this many octaves; 0: automatic, OpenCV's count with "
                       "upscale and 5 without (the video mode, as CudaSift); a number past the "
                       "frame's count takes them all",
                       0, G_MAXINT, 0, kMutablePlaying),
      [](FilterSettings& s) { return PropertyField(&s.features.sift.max_octaves); });
  filter_properties().install(
      klass, kPropDescriptor,
      g_param_spec_enum("descriptor", "Descriptor",
                        "Descriptor format in the meta; SURF takes float or none",
                        descriptor_enum_type(), static_cast<gint>(d.descriptor), kMutablePlaying),
      [](FilterSettings& s) { return PropertyField(&s.features.sift.descriptor); });
  filter_properties().install(
      klass, kPropMaxKeypoints,
      g_param_spec_int("max-keypoints", "Maximum keypoints",
                       "Capacity of the keypoint list; past it the strongest are kept and a "
                       "warning is posted",
                       1, 1 << 22, d.max_keypoints, kMutablePlaying),
      [](FilterSettings& s) { return PropertyField(&s.features.sift.max_keypoints); });
  install_surf_properties(klass);
  filter_properties().install(
      klass, kPropHostFrameAccess,
      g_param_spec_enum("host-frame-access", "Host frame access",
                        "CUDA backend, frames in system memory: upload them (copy), or let the "
                        "kernels read them where they are (mapped; no upload where CPU and GPU "
                        "share memory, and the frames in the pinned pool offered upstream need no "
                        "copy at all); auto maps on integrated GPUs",
                        host_frame_access_enum_type(), static_cast<gint>(HostFrameAccess::kAuto),
                        kReadyOnly),
      [](FilterSettings& s) { return PropertyField(&s.host_frame_access); });
  filter_properties().install(
      klass, kPropAnalytics,
      g_param_spec_boolean(
          "analytics", "Analytics tensors",
          "Also offer each frame's keypoints and descriptors as tensors in a GstTensorMeta "
          "(gpusift-keypoints: N x 7 float32; gpusift-descriptors: N x 128 or 64, float32 or "
          "uint8); only in builds against GStreamer 1.26 and newer with its analytics library, "
          "elsewhere it has no effect",
          FilterSettings{}.analytics, kMutablePlaying),
      [](FilterSettings& s) { return PropertyField(&s.analytics); });
}

const char* const kFilterFramesInFlightBlurb =
    "1: each frame leaves once its features are extracted. 2: the GPU extracts a frame while "
    "upstream makes the next one, and the frame leaves one frame later (more throughput, one "
    "frame more latency; CUDA SIFT only, else 1). 0: auto, 2 on the CUDA SIFT backend when "
    "upstream is not live, else 1";

bool set_filter_property(FilterSettings* s, guint id, const GValue* value) {
  filter_properties().set(s, id, value);
  SiftParams& sift = s->features.sift;
  SurfParams& surf = s->features.surf;
  if (id == kPropNfeatures)
    surf.nfeatures = sift.nfeatures;
  if (id == kPropDistribution)
    surf.distribution = sift.distribution;
  if (id == kPropNOctaveLayers)
    surf.n_octave_layers = sift.n_octave_layers;
  if (id == kPropDescriptor)
    surf.descriptor = sift.descriptor;
  if (id == kPropMaxKeypoints)
    surf.max_keypoints = sift.max_keypoints;
  // 0 for sigma or max-octaves: automatic, following upscale.
  if (id == kPropSigma)
    s->chosen.sigma = sift.sigma != 0.f;
  if (id == kPropMaxOctaves)
    s->chosen.max_octaves = sift.max_octaves != 0;
  if (id == kPropSigma || id == kPropUpscale || id == kPropMaxOctaves)
    apply_upscale_defaults(&sift, s->chosen);
  return id != kPropHostFrameAccess && id != kPropAnalytics;
}

int filter_frames_in_flight(int setting, int extractor_max_in_flight, bool upstream_live) {
  const int wanted = setting > 0 ? setting : (upstream_live ? 1 : 2);
  return std::min(wanted, extractor_max_in_flight);
}

void get_filter_property(const FilterSettings& s, guint id, GValue* value) {
  if (id == kPropSigma && !s.chosen.sigma)
    g_value_set_double(value, 0.0);
  else if (id == kPropMaxOctaves && !s.chosen.max_octaves)
    g_value_set_int(value, 0);
  else
    filter_properties().get(s, id, value);
}

}  // namespace gpusift::gst
