// SPDX-License-Identifier: LGPL-2.1-or-later
#include "track_counts.h"

namespace gpusift::results {

TrackCounts TrackCounter::count(const GstKeypointsTracksMeta& meta) {
  TrackCounts counts;
  counts.alive = meta.motion.tracks_alive;
  for (guint i = 0; i < meta.n_tracks; ++i) {
    if (meta.tracks[i].age == 0)
      ++counts.born;
  }
  if (previous_alive_) {
    const guint64 before = *previous_alive_;
    if (meta.motion.frame_number == 0) {
      counts.ended = static_cast<guint>(before);
    } else {
      // A frame the counter did not see (a tracks meta missing in between) can make this
      // negative: then nothing is known to have ended.
      const guint64 kept = static_cast<guint64>(counts.alive) - counts.born;
      counts.ended =
          counts.alive >= counts.born && before > kept ? static_cast<guint>(before - kept) : 0;
    }
  }
  previous_alive_ = counts.alive;
  return counts;
}

}  // namespace gpusift::results
