// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/sift_params.h"

#include <cmath>
#include <cstddef>
#include <string>

#include "gpusift/error.h"
#include "gpusift/sift_scale_space.h"

namespace gpusift {

namespace {

// An enum value and its name, for the parameters spelled as words.
template <typename E>
struct Named {
  E value;
  const char* name;
};

constexpr Named<DescriptorFormat> kFormatNames[] = {
    {DescriptorFormat::kNone, "none"},
    {DescriptorFormat::kFloat, "float"},
    {DescriptorFormat::kUint8, "uint8"},
    {DescriptorFormat::kRootSift, "rootsift"},
};

constexpr Named<KeypointDistribution> kDistributionNames[] = {
    {KeypointDistribution::kGlobal, "global"},
    {KeypointDistribution::kGrid, "grid"},
};

template <typename E, size_t N>
const char* name_in(const Named<E> (&table)[N], E value) {
  for (const Named<E>& entry : table) {
    if (entry.value == value)
      return entry.name;
  }
  return "unknown";
}

template <typename E, size_t N>
bool parse_in(const Named<E> (&table)[N], const std::string& text, E* value) {
  for (const Named<E>& entry : table) {
    if (text == entry.name) {
      *value = entry.value;
      return true;
    }
  }
  return false;
}

[[noreturn]] void reject(const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, "invalid SIFT parameter: " + what);
}

}  // namespace

const char* descriptor_format_name(DescriptorFormat format) {
  return name_in(kFormatNames, format);
}

bool parse_descriptor_format(const std::string& text, DescriptorFormat* format) {
  return parse_in(kFormatNames, text, format);
}

const char* keypoint_distribution_name(KeypointDistribution distribution) {
  return name_in(kDistributionNames, distribution);
}

bool parse_keypoint_distribution(const std::string& text, KeypointDistribution* distribution) {
  return parse_in(kDistributionNames, text, distribution);
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
