/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One JSON object per frame from the buffer's metas (docs/results-json.md, schema version 1):
 * what keypointjsonsink writes as a line and keypointmqttsink publishes. The serializer belongs to
 * one stream: it numbers the frames and carries the object ids and the track counts from frame
 * to frame. */
#pragma once

#include <gst/gst.h>
#include <json-glib/json-glib.h>

#include <string>

#include "frame_metas.h"
#include "object_ids.h"
#include "track_counts.h"

namespace gpusift::results {

struct ResultsOptions {
  std::string stream_id;
  bool include_tracks = false;     // each track's id, age and position
  bool include_keypoints = false;  // each keypoint, without its descriptor
};

class ResultsSerializer {
 public:
  ResultsSerializer();
  ~ResultsSerializer();
  ResultsSerializer(const ResultsSerializer&) = delete;
  ResultsSerializer& operator=(const ResultsSerializer&) = delete;

  // The frame size from the stream's caps; 0 when the caps have none (the keypoints meta's size
  // is used then).
  void set_frame_size(guint width, guint height) {
    width_ = width;
    height_ = height;
  }
  // The same from the caps' width and height (0 x 0 when either is missing or negative): what
  // both results sinks do in set_caps.
  void set_frame_size_from_caps(const GstCaps* caps);

  // The buffer's results as one line of JSON (no newline) in @json. FALSE, with @error set
  // (GST_KEYPOINTS_META_ERROR), when a meta fails its validation; nothing is counted then.
  bool serialize(GstBuffer* buffer, const ResultsOptions& options, std::string* json,
                 GError** error);

  // The next frame does not follow the last one (flush, new stream): object ids and ended-track
  // counts start over. The frame numbering goes on.
  void forget_continuity();

  guint64 frames() const { return seq_; }

 private:
  void add_features(const FrameMetas& metas, const ResultsOptions& options);
  void add_motion(const FrameMetas& metas);
  void add_tracks(const FrameMetas& metas, const ResultsOptions& options);
  void add_objects(const FrameMetas& metas);

  JsonBuilder* builder_;
  JsonGenerator* generator_;
  ObjectIds object_ids_;
  TrackCounter track_counter_;
  guint width_ = 0;
  guint height_ = 0;
  guint64 seq_ = 0;
};

}  // namespace gpusift::results
