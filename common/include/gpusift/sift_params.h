// SPDX-License-Identifier: LGPL-2.1-or-later
// SIFT parameters with OpenCV's names and defaults.
#pragma once

#include <string>

namespace gpusift {

enum class DescriptorFormat {
  kNone,      // keypoints only
  kFloat,     // unit L2 norm after the 0.2 clamp (OpenCV's float output is this times 512, rounded)
  kUint8,     // OpenCV's bytes: saturate(unit * 512)
  kRootSift,  // sqrt of the L1-normalised descriptor (Arandjelovic & Zisserman 2012)
};

const char* descriptor_format_name(DescriptorFormat format);
// Accepts "none", "float", "uint8", "rootsift"; returns false for anything else.
bool parse_descriptor_format(const std::string& text, DescriptorFormat* format);

// How nfeatures spreads its budget over the frame.
enum class KeypointDistribution {
  kGlobal,  // the nfeatures strongest of the whole frame (OpenCV's nfeatures)
  // Over a grid of cells sized from nfeatures and the frame (keypoint_grid.h): round by round,
  // each cell's next strongest keypoint, the last round's strongest first. Textured regions
  // cannot take the whole budget; cells without keypoints leave theirs to the others.
  kGrid,
};

const char* keypoint_distribution_name(KeypointDistribution distribution);
// Accepts "global" and "grid"; returns false for anything else.
bool parse_keypoint_distribution(const std::string& text, KeypointDistribution* distribution);

inline constexpr int kSiftDescriptorSize = 128;
// Frames past these are refused before any allocation: the pyramid of a larger frame would not
// fit the memory of the machines gpusift targets.
inline constexpr int kMaxFrameSide = 16384;
inline constexpr long long kMaxFramePixels = 16384LL * 16384LL;
inline constexpr int kMaxOctaveLayers = 8;

// OpenCV's first-octave blur, and the video mode's. Without the doubled first octave, 1.6 leaves
// out the finest scales, where most of a frame's repeatable keypoints are; 0.8 finds more correct
// matches under a rotation and scale than CudaSift on each of 16 real image pairs (README).
inline constexpr float kOpenCvSigma = 1.6f;
inline constexpr float kVideoSigma = 0.8f;

// The sigma of a caller who chose none: OpenCV's with upscaling, which gives parity with
// cv::SIFT, and the video mode's without.
constexpr float default_sigma(bool upscale) {
  return upscale ? kOpenCvSigma : kVideoSigma;
}

// The video mode's octaves, as CudaSift's: the ones past the fifth are a chain of tiny levels on
// every frame's critical path (720p: 14 us of an H100's 0.21 ms) that gave 6 of 16490 correct
// matches on the README's 16 pairs.
inline constexpr int kVideoMaxOctaves = 5;

// The max_octaves of a caller who chose none: OpenCV's count with upscaling, the video mode's
// without.
constexpr int default_max_octaves(bool upscale) {
  return upscale ? 0 : kVideoMaxOctaves;
}

struct SiftParams {
  int nfeatures = 0;  // keep the strongest N by response; 0 keeps all
  KeypointDistribution distribution = KeypointDistribution::kGlobal;  // of the nfeatures
  int n_octave_layers = 3;
  float contrast_threshold = 0.04f;
  float edge_threshold = 10.f;
  float sigma = kOpenCvSigma;
  // OpenCV doubles the image for its first octave; on by default so that defaults give parity.
  bool upscale = true;
  // At most this many octaves; 0: OpenCV's count, round(log2(shorter side)) - 2 (+1 upscaled).
  int max_octaves = 0;
  DescriptorFormat descriptor = DescriptorFormat::kFloat;
  // Capacity of the keypoint list; past it the strongest are kept and the overflow is reported.
  int max_keypoints = 65536;
};

// The parameters whose default follows upscale, and whether the caller set each by hand.
struct ChosenByHand {
  bool sigma = false;
  bool max_octaves = false;
};

// Gives the parameters not chosen by hand upscale's defaults (default_sigma,
// default_max_octaves), as gpusiftfilter and the CLIs do whenever upscale or a choice changes.
inline void apply_upscale_defaults(SiftParams* params, ChosenByHand chosen) {
  if (!chosen.sigma)
    params->sigma = default_sigma(params->upscale);
  if (!chosen.max_octaves)
    params->max_octaves = default_max_octaves(params->upscale);
}

// gpusiftfilter's defaults: no doubled first octave, sigma kVideoSigma, kVideoMaxOctaves octaves,
// OpenCV's thresholds.
inline SiftParams video_sift_params() {
  SiftParams params;
  params.upscale = false;
  params.sigma = kVideoSigma;
  params.max_octaves = kVideoMaxOctaves;
  return params;
}

// Throws gpusift::Error(kInvalidArgument) naming the first bad field.
void validate(const SiftParams& params);

}  // namespace gpusift
