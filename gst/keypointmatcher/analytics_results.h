/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* keypointmatcher's found objects as GStreamer analytics results (GstAnalyticsRelationMeta, from
 * GStreamer 1.24 with its analytics library): per found object an object-detection result, a
 * tracking result and the keypoints that support the object (GstKeypointsSupportMtd), related
 * to each other. Built without the analytics library, nothing is attached. */
#pragma once

#include <gst/gst.h>

#include <string>

#include "gpusift/object_finding.h"

namespace gpusift::gst {

// Whether this build attaches analytics results at all.
bool analytics_results_built();

// One matcher's object over a stream: a track lasts while the object is found frame after frame;
// a frame without it ends the track, and the next detection starts one with a new id. Ids count
// from 1 in each matcher, and are not reused until the element stops.
class ObjectTrack {
 public:
  void found(GstClockTime time);
  void missed() { id_ = 0; }
  void restart() { *this = ObjectTrack{}; }
  guint64 id() const { return id_; }
  GstClockTime first_seen() const { return first_seen_; }

 private:
  guint64 next_id_ = 1;
  guint64 id_ = 0;  // 0: no track now
  GstClockTime first_seen_ = GST_CLOCK_TIME_NONE;
};

// What one found object adds: its box in the frame's pixels, its label, the track it is on and
// the frame's time (the buffer's PTS).
struct FoundObject {
  const objects::Detection* detection = nullptr;
  objects::PixelBox box;
  std::string label;
  const ObjectTrack* track = nullptr;
  GstClockTime time = GST_CLOCK_TIME_NONE;
};

// Adds the object-detection result (the box, the label as its type, inliers / matches as its
// location confidence), the tracking result (id, first and last seen) and the support result,
// each related to the detection both ways (GST_ANALYTICS_REL_TYPE_RELATE_TO), to the buffer's
// relation meta, made when it has none. False when the relation meta refuses a result.
bool attach_analytics_results(GstBuffer* buffer, const FoundObject& object);

}  // namespace gpusift::gst
