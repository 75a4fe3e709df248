/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The metas of one buffer that the results JSON reports, each checked before anything reads it. */
#pragma once

#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/keypoints/gstkeypointsobjectmeta.h>
#include <gst/keypoints/gstkeypointstracksmeta.h>

#include <vector>

namespace gpusift::results {

struct FrameMetas {
  const GstKeypointsMeta* keypoints = nullptr;         // gpusiftfilter's, or none
  const GstKeypointsTracksMeta* tracks = nullptr;      // keypointtracker's, or none
  std::vector<const GstKeypointsObjectMeta*> objects;  // keypointmatchers', in buffer order

  // Each track belongs to the keypoint of its index only when the counts agree: a second filter
  // after the tracker leaves a stale tracks meta beside new keypoints.
  bool tracks_match_keypoints() const {
    return keypoints != nullptr && tracks != nullptr && tracks->n_tracks == keypoints->n_keypoints;
  }
};

// Collects the buffer's metas. FALSE, with @error naming the field, when the keypoints or tracks
// meta fails its validation: its counts would send a reader past its arrays.
bool read_frame_metas(GstBuffer* buffer, FrameMetas* metas, GError** error);

}  // namespace gpusift::results
