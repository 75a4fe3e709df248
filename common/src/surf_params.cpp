// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/surf_params.h"

#include <cmath>
#include <string>

#include "gpusift/error.h"

namespace gpusift {

namespace {

[[noreturn]] void reject(const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, "invalid SURF parameter: " + what);
}

void check_range(const char* field, int value, int low, int high) {
  if (value < low || value > high)
    reject(std::string(field) + " must be in [" + std::to_string(low) + ", " +
           std::to_string(high) + "], got " + std::to_string(value));
}

}  // namespace

void validate(const SurfParams& p) {
  if (!std::isfinite(p.hessian_threshold) || p.hessian_threshold < 0)
    reject("hessian_threshold must be a finite value >= 0");
  check_range("n_octaves", p.n_octaves, 1, kSurfMaxOctaves);
  check_range("n_octave_layers", p.n_octave_layers, 1, kSurfMaxOctaveLayers);
  if (p.nfeatures < 0)
    reject("nfeatures must be >= 0, got " + std::to_string(p.nfeatures));
  if (std::string(keypoint_distribution_name(p.distribution)) == "unknown")
    reject("unknown keypoint distribution");
  check_range("max_keypoints", p.max_keypoints, 1, 1 << 22);
  switch (p.descriptor) {
    case DescriptorFormat::kNone:
    case DescriptorFormat::kFloat:
      return;
    case DescriptorFormat::kUint8:
    case DescriptorFormat::kRootSift:
      reject(std::string("descriptor ") + descriptor_format_name(p.descriptor) +
             " does not apply to SURF, whose values are signed; use float or none");
  }
  reject("unknown descriptor format");
}

}  // namespace gpusift
