// SPDX-License-Identifier: LGPL-2.1-or-later
// The scenes keypointmatcher's suites search: a reference cut out of a real image (chelsea.png,
// the cat's face), pasted under known homographies (rotation, scale, perspective) into other real
// images, and frames of those other images alone. Plus the files the element reads.
#pragma once

#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsobjectmeta.h>

#include <opencv2/core.hpp>
#include <string>
#include <vector>

namespace gpusift::testing {

inline const cv::Size kSceneSize(640, 480);

// The reference image, BGR.
cv::Mat object_reference_bgr();

struct ObjectScene {
  std::string name;
  cv::Mat bgr;             // kSceneSize
  cv::Matx33d homography;  // reference pixel -> frame pixel; meaningful when has_object
  bool has_object = false;
};

// The reference pasted into astronaut, brick, grass, gravel and camera under rotations of up to
// 180 degrees, scales 0.45-1.6 and perspective (the far side down to half the near side's
// length); every corner stays inside the frame.
std::vector<ObjectScene> positive_scenes();
// `count` frames without the object: crops of astronaut, brick, grass, gravel, camera and coins
// at random positions, rotations and scales, and the parts of chelsea.png outside the reference.
std::vector<ObjectScene> negative_scenes(int count);

// The largest distance between the meta's corners and the reference's corner pixel centres under
// `truth`.
double object_corner_error(const GstKeypointsObjectMeta* meta, const cv::Matx33d& truth,
                           cv::Size reference);

// A colour PNG through GStreamer's pngenc (the suites' OpenCV has no image codecs); false on
// failure.
bool write_png(const cv::Mat& bgr, const std::string& path);

// A folder under the system's temporary folder, removed with its files by the destructor.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The reference as an image and as features files (SIFT with gpusiftfilter's defaults, SURF
// with OpenCV's), written once per process into a scratch folder.
class ReferenceFiles {
 public:
  static const ReferenceFiles& get();
  const std::string& png() const { return png_; }
  const std::string& sift_features() const { return sift_features_; }
  const std::string& surf_features() const { return surf_features_; }
  // A path in the scratch folder, for a test's own files.
  std::string scratch(const std::string& name) const { return dir_.file(name); }
  cv::Size size() const { return size_; }

 private:
  ReferenceFiles();

  ScratchDir dir_;
  cv::Size size_;
  std::string png_, sift_features_, surf_features_;
};

}  // namespace gpusift::testing
