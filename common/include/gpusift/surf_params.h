// SPDX-License-Identifier: LGPL-2.1-or-later
// SURF parameters with the names and defaults of OpenCV's cv::xfeatures2d::SURF.
#pragma once

#include "gpusift/sift_params.h"

namespace gpusift {

inline constexpr int kSurfDescriptorSize = 64;
inline constexpr int kSurfExtendedDescriptorSize = 128;
// With these limits the largest box of any filter holds fewer than 2^32 / 255 pixels, which keeps
// the 32-bit integral image exact (surf_integral.h).
inline constexpr int kSurfMaxOctaves = 8;
inline constexpr int kSurfMaxOctaveLayers = 8;

struct SurfParams {
  // Minimum determinant of the box-filter Hessian, in OpenCV's units: each lobe is the mean of its
  // box on 0..255 pixels. det = Dxx Dyy - (0.54 Dxy)^2 (surf_hessian.h says why not OpenCV's 0.9),
  // which equals OpenCV's determinant wherever Dxy vanishes, as at round blobs.
  double hessian_threshold = 100;
  int n_octaves = 4;
  // Detection layers per octave; the octave computes n_octave_layers + 2 filter sizes,
  // (9 + 6 l) << octave for l = 0 .. n_octave_layers + 1.
  int n_octave_layers = 3;
  bool extended = false;  // 128 values instead of 64
  bool upright = false;   // no orientation: every angle is 270, as OpenCV's upright SURF
  // kNone or kFloat: SURF's values are signed, so uint8 and rootsift are refused.
  DescriptorFormat descriptor = DescriptorFormat::kFloat;
  int nfeatures = 0;  // keep the strongest N by response; 0 keeps all
  KeypointDistribution distribution = KeypointDistribution::kGlobal;  // of the nfeatures
  // Capacity of the keypoint list; past it the strongest are kept and the overflow is reported.
  int max_keypoints = 65536;
};

// Throws gpusift::Error(kInvalidArgument) naming the first bad field.
void validate(const SurfParams& params);

inline int surf_descriptor_size(const SurfParams& params) {
  if (params.descriptor == DescriptorFormat::kNone)
    return 0;
  return params.extended ? kSurfExtendedDescriptorSize : kSurfDescriptorSize;
}

}  // namespace gpusift
