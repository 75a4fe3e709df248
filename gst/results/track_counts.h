/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The track summary of one frame from its GstKeypointsTracksMeta: tracks alive after the frame
 * (the motion's tracks_alive), tracks begun in it (age 0) and tracks ended in it. The meta does
 * not carry the ended ones, so they follow from the previous frame: every track alive before
 * either is still alive or ended, and the alive ones are those plus the new ones. When the
 * tracker starts over (frame number 0) every track alive before has ended. */
#pragma once

#include <gst/keypoints/gstkeypointstracksmeta.h>

#include <optional>

namespace gpusift::results {

struct TrackCounts {
  guint alive = 0;
  guint born = 0;
  guint ended = 0;
};

class TrackCounter {
 public:
  // The counts of a frame; the meta must have passed gst_keypoints_tracks_meta_validate().
  TrackCounts count(const GstKeypointsTracksMeta& meta);

  // The next frame does not follow this one: its ended count is 0 unless the tracker restarts.
  void forget() { previous_alive_.reset(); }

 private:
  std::optional<guint> previous_alive_;
};

}  // namespace gpusift::results
