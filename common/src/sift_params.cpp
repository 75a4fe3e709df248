// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/sift_params.h"

#include <cmath>
#include <string>

#include "gpusift/error.h"
#include "gpusift/sift_scale_space.h"

namespace gpusift {

namespace {

struct FormatName {
  DescriptorFormat format;
  const char* name;
};

constexpr FormatName kFormatNames[] = {
    {DescriptorFormat::kNone, "none"},
    {DescriptorFormat::kFloat, "float"},
    {DescriptorFormat::kUint8, "uint8"},
    {DescriptorFormat::kRootSift, "rootsift"},
};

struct DistributionName {
  KeypointDistribution distribution;
  const char* name;
};

constexpr DistributionName kDistributionNames[] = {
    {KeypointDistribution::kGlobal, "global"},
    {KeypointDistribution::kGrid, "grid"},
};

[[noreturn]] void reject(const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, "invalid SIFT parameter: " + what);
}

}  // namespace

const char* descriptor_format_name(DescriptorFormat format) {
  for (const FormatName& entry : kFormatNames) {
    if (entry.format == format)
      return entry.name;
  }
  return "unknown";
}

bool parse_descriptor_format(const std::string& text, DescriptorFormat* format) {
  for (const FormatName& entry : kFormatNames) {
    if (text == entry.name) {
      *format = entry.format;
      return true;
    }
  }
  return false;
}

const char* keypoint_distribution_name(KeypointDistribution distribution) {
  for (const DistributionName& entry : kDistributionNames) {
    if (entry.distribution == distribution)
      return entry.name;
  }
  return "unknown";
}

bool parse_keypoint_distribution(const std::string& text, KeypointDistribution* distribution) {
  for (const DistributionName& entry : kDistributionNames) {
    if (text == entry.name) {
      *distribution = entry.distribution;
      return true;
    }
  }
  return false;
}

void validate(const SiftParams& p) {
  if (p.nfeatures < 0)
    reject("nfeatures must be >= 0, got " + std::to_string(p.nfeatures));
  if (std::string(keypoint_distribution_name(p.distribution)) == "unknown")
    reject("unknown keypoint distribution");
  if (p.n_octave_layers < 1 || p.n_octave_layers > kMaxOctaveLayers)
    reject("n_octave_layers must be in [1, " + std::to_string(kMaxOctaveLayers) + "], got " +
           std::to_string(p.n_octave_layers));
  if (!std::isfinite(p.contrast_threshold) || p.contrast_threshold < 0.f)
    reject("contrast_threshold must be a finite value >= 0");
  if (!std::isfinite(p.edge_threshold) || p.edge_threshold <= 0.f)
    reject("edge_threshold must be a finite value > 0");
  if (!std::isfinite(p.sigma) || p.sigma < 0.5f || p.sigma > 4.f)
    reject("sigma must be in [0.5, 4], got " + std::to_string(p.sigma));
  if (p.max_octaves < 0)
    reject("max_octaves must be >= 0 (0: OpenCV's count), got " + std::to_string(p.max_octaves));
  if (p.max_keypoints < 1 || p.max_keypoints > (1 << 22))
    reject("max_keypoints must be in [1, 4194304], got " + std::to_string(p.max_keypoints));
  const int widest = gaussian_radius(
      level_blur_sigma(p.sigma, p.n_octave_layers, gaussian_levels(p.n_octave_layers) - 1));
  if (widest > kMaxGaussianRadius)
    reject("sigma too large for n_octave_layers");
  switch (p.descriptor) {
    case DescriptorFormat::kNone:
    case DescriptorFormat::kFloat:
    case DescriptorFormat::kUint8:
    case DescriptorFormat::kRootSift:
      return;
  }
  reject("unknown descriptor format");
}

}  // namespace gpusift
