// SPDX-License-Identifier: LGPL-2.1-or-later
/* OpenCV views of a GstKeypointsMeta, header-only so that the meta library itself does not
 * depend on OpenCV. */
#pragma once

#include <gst/keypoints/gstkeypointsmeta.h>

#include <opencv2/core.hpp>
#include <vector>

namespace gst_keypoints {

/* True when the meta may be read through its fields; a meta whose fields were changed gives a
 * critical warning naming the cause, and the views below come back empty. */
inline bool readable(const GstKeypointsMeta* meta, const char* where) {
  GError* error = nullptr;
  if (gst_keypoints_meta_validate(meta, &error)) {
    return true;
  }
  g_critical("%s: %s", where, error->message);
  g_error_free(error);
  return false;
}

/* The keypoints as cv::KeyPoint; empty without a meta or for an inconsistent one. */
inline std::vector<cv::KeyPoint> to_cv_keypoints(const GstKeypointsMeta* meta) {
  std::vector<cv::KeyPoint> keypoints;
  if (meta == nullptr || !readable(meta, "gst_keypoints::to_cv_keypoints")) {
    return keypoints;
  }
  keypoints.reserve(meta->n_keypoints);
  for (guint i = 0; i < meta->n_keypoints; i++) {
    const GstKeypoint& kp = meta->keypoints[i];
    keypoints.emplace_back(kp.x, kp.y, kp.size, kp.angle, kp.response, kp.octave, kp.class_id);
  }
  return keypoints;
}

/* n_keypoints x descriptor_size, CV_32F or CV_8U, a copy; empty without descriptors and for an
 * inconsistent meta. */
inline cv::Mat to_cv_descriptors(const GstKeypointsMeta* meta) {
  if (meta == nullptr || !readable(meta, "gst_keypoints::to_cv_descriptors") ||
      meta->n_keypoints == 0 || meta->descriptors == nullptr) {
    return cv::Mat();
  }
  int type;
  switch (meta->descriptor_type) {
    case GST_KEYPOINTS_DESCRIPTOR_FLOAT32:
      type = CV_32F;
      break;
    case GST_KEYPOINTS_DESCRIPTOR_UINT8:
      type = CV_8U;
      break;
    default:
      return cv::Mat();
  }
  const cv::Mat shared(static_cast<int>(meta->n_keypoints), static_cast<int>(meta->descriptor_size),
                       type, const_cast<gpointer>(meta->descriptors));
  return shared.clone();
}

}  // namespace gst_keypoints
