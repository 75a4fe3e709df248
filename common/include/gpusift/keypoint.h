// SPDX-License-Identifier: LGPL-2.1-or-later
// A detected feature in OpenCV's cv::KeyPoint conventions.
#pragma once

#include <cstdint>

#include "gpusift/hostdevice.h"

namespace gpusift {

struct Keypoint {
  float x;         // column, pixel centres at integers
  float y;         // row
  float size;      // diameter of the meaningful neighbourhood
  float angle;     // degrees in [0, 360), counter-clockwise with y down as OpenCV; -1 if none
  float response;  // |DoG contrast| for SIFT
  // OpenCV packing: bits 0-7 octave (signed, -1 for the upscaled first octave),
  // bits 8-15 layer, bits 16-23 round((sub-layer offset + 0.5) * 255).
  int32_t octave;
  int32_t class_id;  // SURF: sign of the Laplacian (+1 / -1); SIFT: -1, as OpenCV
};

struct UnpackedOctave {
  int octave;  // -1 .. n
  int layer;
  float scale;  // multiplies base-image coordinates into octave coordinates
};

GPUSIFT_HD UnpackedOctave unpack_octave(int32_t packed) {
  UnpackedOctave u;
  u.octave = static_cast<int8_t>(packed & 255);
  u.layer = (packed >> 8) & 255;
  u.scale =
      u.octave >= 0 ? 1.f / static_cast<float>(1 << u.octave) : static_cast<float>(1 << -u.octave);
  return u;
}

// OpenCV's KeyPoint_LessThan order (x, y, size descending, angle, response descending, octave
// descending): a total order so that sorted output is deterministic.
GPUSIFT_HD bool keypoint_canonical_less(const Keypoint& a, const Keypoint& b) {
  if (a.x != b.x)
    return a.x < b.x;
  if (a.y != b.y)
    return a.y < b.y;
  if (a.size != b.size)
    return a.size > b.size;
  if (a.angle != b.angle)
    return a.angle < b.angle;
  if (a.response != b.response)
    return a.response > b.response;
  return a.octave > b.octave;
}

GPUSIFT_HD bool keypoint_same_feature(const Keypoint& a, const Keypoint& b) {
  return a.x == b.x && a.y == b.y && a.size == b.size && a.angle == b.angle;
}

}  // namespace gpusift
