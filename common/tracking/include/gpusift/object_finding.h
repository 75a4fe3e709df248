/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Finding a known planar object in a frame apart from GStreamer: the reference's descriptors
// matched to the frame's (Lowe's ratio test), a RANSAC homography from the reference to the
// frame, and checks that its outline is one a flat object seen from the front can have.
#pragma once

#include <array>
#include <vector>

#include "gpusift/keypoint.h"
#include "gpusift/matcher.h"

namespace gpusift::objects {

using Matrix3 = std::array<double, 9>;  // row-major 3x3
// x, y of the reference's corner pixel centres in the frame: top-left, top-right, bottom-right,
// bottom-left of the reference.
using Outline = std::array<double, 8>;

struct FinderParams {
  MatchParams match;
  float ransac_threshold = 3.0f;  // pixels
  // A present object typically brings 30-70 % inliers among its matches; 2000 minimal samples
  // still find a 20 % share with 96 % certainty.
  int ransac_iterations = 2000;
  int min_inliers = 12;
};

// One side of the matching: keypoints with their descriptor rows (host memory).
struct FeatureSet {
  const Keypoint* keypoints = nullptr;
  int count = 0;
  DescriptorSetView descriptors{nullptr, 0, 0, DescriptorFormat::kNone, MemoryKind::kHost};
};

struct Detection {
  bool found = false;
  int matches = 0;
  int inliers = 0;                                   // of the best homography, found or not
  Matrix3 homography = {1, 0, 0, 0, 1, 0, 0, 0, 1};  // reference -> frame; identity without a fit
  Outline corners{};                                 // valid when found
  const char* reason = "";                           // why not found
  // When found: the frame keypoints (indices into the frame's FeatureSet, ascending, each once)
  // of the matches that agree with the homography (within the RANSAC threshold); at most as many
  // as inliers, fewer where two reference keypoints match one frame keypoint.
  std::vector<int> supporting_keypoints;
};

// The reference's corner pixel centres (0, 0), (w - 1, 0), (w - 1, h - 1), (0, h - 1) mapped by
// h; false when one does not map to a finite point.
bool project_reference_corners(const Matrix3& h, int reference_width, int reference_height,
                               Outline* corners);

// Why the homography cannot show a flat reference of that size seen from its front, or nullptr
// when it can: the whole reference must lie in front of the camera, its outline must be a convex
// quadrilateral turning the reference's way (no mirror image), of at least kMinOutlineArea
// pixels, and between 1/kMaxAreaScale and kMaxAreaScale times the reference's area.
inline constexpr double kMinOutlineArea = 100.0;
inline constexpr double kMaxAreaScale = 400.0;
const char* implausible_outline(const Matrix3& h, int reference_width, int reference_height);

// The pixels of a frame_width x frame_height frame that the outline's bounding box covers, with
// the outline scaled by (sx, sy) into the frame's pixel grid: rounded outwards, clipped to the
// frame. False when it covers none.
struct PixelBox {
  int x = 0;
  int y = 0;
  int width = 0;
  int height = 0;
};
bool outline_pixel_box(const Outline& corners, double sx, double sy, int frame_width,
                       int frame_height, PixelBox* box);

class ObjectFinder {
 public:
  explicit ObjectFinder(Matcher* matcher) : matcher_(matcher) {}

  // Throws gpusift::Error from the matcher. RANSAC's seed is fixed: a frame gives the same
  // detection every time, on either backend.
  void find(const FeatureSet& reference, int reference_width, int reference_height,
            const FeatureSet& frame, const FinderParams& params, Detection* out);

 private:
  Matcher* matcher_;
  std::vector<Match> matches_;
  std::vector<PointPair> pairs_;
};

}  // namespace gpusift::objects
