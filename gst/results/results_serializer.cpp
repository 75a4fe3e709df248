// SPDX-License-Identifier: LGPL-2.1-or-later
#include "results_serializer.h"

#include <cmath>
#include <vector>

#include "results_schema.h"

namespace gpusift::results {

namespace {

// JSON has no NaN or infinity; json-glib would print them as bare words that no parser takes.
void add_number(JsonBuilder* b, double value) {
  if (std::isfinite(value))
    json_builder_add_double_value(b, value);
  else
    json_builder_add_null_value(b);
}

void add_member_number(JsonBuilder* b, const char* name, double value) {
  json_builder_set_member_name(b, name);
  add_number(b, value);
}

void add_member_int(JsonBuilder* b, const char* name, gint64 value) {
  json_builder_set_member_name(b, name);
  json_builder_add_int_value(b, value);
}

void add_member_bool(JsonBuilder* b, const char* name, bool value) {
  json_builder_set_member_name(b, name);
  json_builder_add_boolean_value(b, value);
}

void add_member_numbers(JsonBuilder* b, const char* name, const gdouble* values, int n) {
  json_builder_set_member_name(b, name);
  json_builder_begin_array(b);
  for (int i = 0; i < n; ++i)
    add_number(b, values[i]);
  json_builder_end_array(b);
}

// GstClockTime (unsigned) as JSON's signed 64-bit integer: none, and anything past it, is null.
void add_member_time(JsonBuilder* b, const char* name, GstClockTime time) {
  json_builder_set_member_name(b, name);
  if (GST_CLOCK_TIME_IS_VALID(time) && time <= static_cast<GstClockTime>(G_MAXINT64))
    json_builder_add_int_value(b, static_cast<gint64>(time));
  else
    json_builder_add_null_value(b);
}

}  // namespace

ResultsSerializer::ResultsSerializer()
    : builder_(json_builder_new()), generator_(json_generator_new()) {}

ResultsSerializer::~ResultsSerializer() {
  g_object_unref(generator_);
  g_object_unref(builder_);
}

void ResultsSerializer::forget_continuity() {
  object_ids_.forget();
  track_counter_.forget();
}

void ResultsSerializer::set_frame_size_from_caps(const GstCaps* caps) {
  const GstStructure* s = gst_caps_get_size(caps) > 0 ? gst_caps_get_structure(caps, 0) : nullptr;
  gint width = 0, height = 0;
  if (s == nullptr || !gst_structure_get_int(s, "width", &width) ||
      !gst_structure_get_int(s, "height", &height) || width < 0 || height < 0) {
    width = 0;
    height = 0;
  }
  set_frame_size(static_cast<guint>(width), static_cast<guint>(height));
}

bool ResultsSerializer::serialize(GstBuffer* buffer, const ResultsOptions& options,
                                  std::string* json, GError** error) {
  FrameMetas metas;
  if (!read_frame_metas(buffer, &metas, error))
    return false;

  JsonBuilder* b = builder_;
  json_builder_reset(b);
  json_builder_begin_object(b);
  add_member_int(b, "schema_version", kResultsSchemaVersion);
  json_builder_set_member_name(b, "stream_id");
  json_builder_add_string_value(b, options.stream_id.c_str());
  add_member_int(b, "seq", static_cast<gint64>(seq_));
  add_member_time(b, "pts", GST_BUFFER_PTS(buffer));

  guint width = width_, height = height_;
  if ((width == 0 || height == 0) && metas.keypoints != nullptr) {
    width = metas.keypoints->width;
    height = metas.keypoints->height;
  }
  json_builder_set_member_name(b, "width");
  if (width > 0)
    json_builder_add_int_value(b, width);
  else
    json_builder_add_null_value(b);
  json_builder_set_member_name(b, "height");
  if (height > 0)
    json_builder_add_int_value(b, height);
  else
    json_builder_add_null_value(b);

  add_features(metas, options);
  add_motion(metas);
  add_tracks(metas, options);
  add_objects(metas);
  json_builder_end_object(b);

  JsonNode* root = json_builder_get_root(b);
  json_generator_set_root(generator_, root);
  gsize length = 0;
  gchar* text = json_generator_to_data(generator_, &length);
  json->assign(text, length);
  g_free(text);
  // The generator keeps its own copy of the root: release both so that no frame's tree stays.
  json_generator_set_root(generator_, nullptr);
  json_node_unref(root);
  ++seq_;
  return true;
}

void ResultsSerializer::add_features(const FrameMetas& metas, const ResultsOptions& options) {
  JsonBuilder* b = builder_;
  json_builder_set_member_name(b, "features");
  const GstKeypointsMeta* meta = metas.keypoints;
  if (meta == nullptr) {
    json_builder_add_null_value(b);
    return;
  }
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "method");
  json_builder_add_string_value(b, gst_keypoints_method_to_string(meta->method));
  add_member_int(b, "count", meta->n_keypoints);
  if (options.include_keypoints) {
    json_builder_set_member_name(b, "keypoints");
    json_builder_begin_array(b);
    for (guint i = 0; i < meta->n_keypoints; ++i) {
      const GstKeypoint& k = meta->keypoints[i];
      json_builder_begin_object(b);
      add_member_number(b, "x", k.x);
      add_member_number(b, "y", k.y);
      add_member_number(b, "size", k.size);
      add_member_number(b, "angle", k.angle);
      add_member_number(b, "response", k.response);
      add_member_int(b, "octave", k.octave);
      add_member_int(b, "class_id", k.class_id);
      json_builder_end_object(b);
    }
    json_builder_end_array(b);
  }
  json_builder_end_object(b);
}

void ResultsSerializer::add_motion(const FrameMetas& metas) {
  JsonBuilder* b = builder_;
  json_builder_set_member_name(b, "motion");
  if (metas.tracks == nullptr) {
    json_builder_add_null_value(b);
    return;
  }
  const GstKeypointMotion& m = metas.tracks->motion;
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "model");
  json_builder_add_string_value(b, gst_keypoint_motion_model_to_string(m.model));
  add_member_int(b, "frame_number", static_cast<gint64>(m.frame_number));
  add_member_bool(b, "valid", m.valid);
  add_member_numbers(b, "matrix", m.matrix, 9);
  add_member_bool(b, "cumulative_valid", m.cumulative_valid);
  add_member_numbers(b, "cumulative", m.cumulative, 9);
  add_member_int(b, "matches", m.matches);
  add_member_int(b, "inliers", m.inliers);
  json_builder_end_object(b);
}

void ResultsSerializer::add_tracks(const FrameMetas& metas, const ResultsOptions& options) {
  JsonBuilder* b = builder_;
  json_builder_set_member_name(b, "tracks");
  if (metas.tracks == nullptr) {
    json_builder_add_null_value(b);
    return;
  }
  const GstKeypointsTracksMeta& tracks = *metas.tracks;
  const TrackCounts counts = track_counter_.count(tracks);
  json_builder_begin_object(b);
  add_member_int(b, "alive", counts.alive);
  add_member_int(b, "new", counts.born);
  add_member_int(b, "ended", counts.ended);
  // A track's position is its keypoint's, which only a tracks meta of one track per keypoint
  // gives.
  if (options.include_tracks && metas.tracks_match_keypoints()) {
    json_builder_set_member_name(b, "items");
    json_builder_begin_array(b);
    for (guint i = 0; i < tracks.n_tracks; ++i) {
      const GstKeypointTrack& t = tracks.tracks[i];
      const GstKeypoint& k = metas.keypoints->keypoints[i];
      json_builder_begin_object(b);
      add_member_int(b, "id", static_cast<gint64>(t.track_id));
      add_member_int(b, "age", t.age);
      add_member_number(b, "x", k.x);
      add_member_number(b, "y", k.y);
      json_builder_end_object(b);
    }
    json_builder_end_array(b);
  }
  json_builder_end_object(b);
}

void ResultsSerializer::add_objects(const FrameMetas& metas) {
  JsonBuilder* b = builder_;
  std::vector<std::string> labels;
  labels.reserve(metas.objects.size());
  for (const GstKeypointsObjectMeta* object : metas.objects) {
    const gchar* label = gst_keypoints_object_meta_get_label(object);
    labels.emplace_back(label ? label : "");
  }
  const std::vector<guint64> ids = object_ids_.assign(labels);

  json_builder_set_member_name(b, "objects");
  json_builder_begin_array(b);
  for (size_t i = 0; i < metas.objects.size(); ++i) {
    const GstKeypointsObjectMeta& object = *metas.objects[i];
    json_builder_begin_object(b);
    add_member_int(b, "id", static_cast<gint64>(ids[i]));
    json_builder_set_member_name(b, "label");
    json_builder_add_string_value(b, labels[i].c_str());
    json_builder_set_member_name(b, "corners");
    json_builder_begin_array(b);
    for (int c = 0; c < 4; ++c) {
      json_builder_begin_array(b);
      add_number(b, object.corners[2 * c]);
      add_number(b, object.corners[2 * c + 1]);
      json_builder_end_array(b);
    }
    json_builder_end_array(b);
    add_member_numbers(b, "homography", object.homography, 9);
    add_member_int(b, "matches", object.matches);
    add_member_int(b, "inliers", object.inliers);
    add_member_int(b, "reference_width", object.reference_width);
    add_member_int(b, "reference_height", object.reference_height);
    json_builder_end_object(b);
  }
  json_builder_end_array(b);
}

}  // namespace gpusift::results
