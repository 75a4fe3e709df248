/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* keypointmatcher's reference: the file its `reference` property names, read when the element
 * starts, and the reference's features. An image's features are computed later, on the first
 * frame, with the stream's method and parameters; a features file's first record is taken as it
 * is. */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpusift/extractor.h"
#include "gpusift/features_file.h"
#include "gpusift/keypoint.h"
#include "gpusift/method.h"
#include "reference_image.h"

namespace gpusift::gst {

enum class ReferenceFailure {
  kNotFound,    // no such file, or no reference given
  kUnreadable,  // not a regular file, no permission, undecodable, a bad features file
};

struct ReferenceLoadError {
  ReferenceFailure failure = ReferenceFailure::kNotFound;
  std::string message;  // for users; names the file
  std::string detail;   // the cause, for the error's debug text
};

// The features of the reference as a GstKeypointsMeta carries a frame's.
struct ReferenceFeatures {
  Method method = Method::kSift;
  int width = 0;  // the reference image's size: the keypoints' space
  int height = 0;
  std::vector<Keypoint> keypoints;
  DescriptorStorage storage = DescriptorStorage::kNone;
  int descriptor_size = 0;
  std::vector<uint8_t> descriptors;  // keypoints.size() rows, float32 or uint8 as `storage` says
};

// "SIFT, 128 float32 values" and the like, for messages.
std::string describe_layout(Method method, DescriptorStorage storage, int descriptor_size);

class ObjectReference {
 public:
  // Reads the file: a features file (by its magic) or an image through GStreamer's decoders,
  // waiting at most decode_timeout_seconds. False with `error` filled when it is unusable.
  bool load(const std::string& path, int decode_timeout_seconds, ReferenceLoadError* error);
  void clear();

  const std::string& path() const { return path_; }
  bool is_image() const { return is_image_; }
  bool has_features() const { return has_features_; }
  const ReferenceFeatures& features() const { return features_; }

  // An image's features by `extractor`, replacing earlier ones. Throws gpusift::Error.
  void compute_features(Extractor* extractor, Method method);

 private:
  bool load_features_file(ReferenceLoadError* error);

  std::string path_;
  bool is_image_ = false;
  DecodedImage image_;  // kept for the stream's whole run: new stream settings need new features
  bool has_features_ = false;
  ReferenceFeatures features_;
};

}  // namespace gpusift::gst
