// SPDX-License-Identifier: LGPL-2.1-or-later
/* The results JSON of gst/results/ from buffers with hand-made metas: every field against the
 * meta it comes from, the frame size, PTS, track counts over a reset, object ids over gaps,
 * non-finite values, and a tampered meta refused. */
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/keypoints/gstkeypointsobjectmeta.h>
#include <gst/keypoints/gstkeypointstracksmeta.h>
#include <gtest/gtest.h>
#include <json-glib/json-glib.h>

#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "results/object_ids.h"
#include "results/results_serializer.h"
#include "results/track_counts.h"

namespace {

using gpusift::results::ObjectIds;
using gpusift::results::ResultsOptions;
using gpusift::results::ResultsSerializer;
using gpusift::results::TrackCounter;

constexpr std::array<gdouble, 9> kHomography = {0.5, 0.0, 100.0, 0.0, 0.5, 50.0, 0.0, 0.0, 1.0};

// A parsed JSON object, freed with the test.
class Parsed {
 public:
  explicit Parsed(const std::string& text) : parser_(json_parser_new()) {
    GError* error = nullptr;
    ok_ =
        json_parser_load_from_data(parser_, text.c_str(), static_cast<gssize>(text.size()), &error);
    if (error != nullptr) {
      ADD_FAILURE() << error->message << " in " << text;
      g_error_free(error);
    }
  }
  ~Parsed() { g_object_unref(parser_); }
  Parsed(const Parsed&) = delete;
  Parsed& operator=(const Parsed&) = delete;

  JsonObject* root() const {
    JsonNode* node = json_parser_get_root(parser_);
    return ok_ && node && JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : nullptr;
  }

 private:
  JsonParser* parser_;
  bool ok_ = false;
};

GstBuffer* frame_buffer(GstClockTime pts) {
  GstBuffer* buffer = gst_buffer_new();
  GST_BUFFER_PTS(buffer) = pts;
  return buffer;
}

std::vector<GstKeypoint> some_keypoints(int n) {
  std::vector<GstKeypoint> keypoints;
  for (int i = 0; i < n; ++i)
    keypoints.push_back(
        GstKeypoint{10.1f + i, 20.7f + 2 * i, 3.3f, 45.5f, 0.01f * (i + 1), (i << 8) | 1, -1});
  return keypoints;
}

GstKeypointsMeta* add_keypoints(GstBuffer* buffer, const std::vector<GstKeypoint>& keypoints) {
  std::vector<float> descriptors(keypoints.size() * 4, 0.25f);
  return gst_buffer_add_keypoints_meta(buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480,
                                       keypoints.data(), static_cast<guint>(keypoints.size()),
                                       GST_KEYPOINTS_DESCRIPTOR_FLOAT32, 4, descriptors.data());
}

GstKeypointMotion motion_of(guint64 frame_number, guint alive) {
  GstKeypointMotion motion;
  gst_keypoint_motion_init(&motion);
  motion.model = GST_KEYPOINT_MOTION_MODEL_HOMOGRAPHY;
  motion.frame_number = frame_number;
  motion.valid = frame_number > 0;
  motion.matrix[2] = 1.5;
  motion.matrix[5] = -0.25;
  motion.cumulative_valid = motion.valid;
  motion.cumulative[2] = 3.0 * static_cast<double>(frame_number);
  motion.matches = 30;
  motion.inliers = 25;
  motion.tracks_alive = alive;
  return motion;
}

// Tracks with the given ids and ages, one per keypoint.
GstKeypointsTracksMeta* add_tracks(GstBuffer* buffer, const std::vector<guint64>& ids,
                                   const std::vector<guint>& ages, const GstKeypointMotion& m) {
  std::vector<GstKeypointTrack> tracks;
  for (size_t i = 0; i < ids.size(); ++i)
    tracks.push_back(GstKeypointTrack{ids[i], ages[i] == 0 ? -1 : 0, ages[i]});
  return gst_buffer_add_keypoints_tracks_meta(buffer, 640, 480, tracks.data(),
                                              static_cast<guint>(tracks.size()), &m);
}

std::string serialize(ResultsSerializer* serializer, GstBuffer* buffer,
                      const ResultsOptions& options) {
  std::string json;
  GError* error = nullptr;
  EXPECT_TRUE(serializer->serialize(buffer, options, &json, &error))
      << (error ? error->message : "");
  g_clear_error(&error);
  return json;
}

ResultsOptions options_for(const char* stream, bool tracks = false, bool keypoints = false) {
  ResultsOptions options;
  options.stream_id = stream;
  options.include_tracks = tracks;
  options.include_keypoints = keypoints;
  return options;
}

double number_at(JsonArray* array, guint i) {
  return json_array_get_double_element(array, i);
}

TEST(ResultsSerializer, AFrameWithoutMetasHasTheSummaryAndNulls) {
  ResultsSerializer serializer;
  serializer.set_frame_size(320, 240);
  GstBuffer* buffer = frame_buffer(5 * GST_MSECOND);
  const std::string json = serialize(&serializer, buffer, options_for("cam-a"));
  // One line: the sinks write it as a line of JSON Lines.
  EXPECT_EQ(json.find('\n'), std::string::npos);
  Parsed parsed(json);
  JsonObject* root = parsed.root();
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(json_object_get_int_member(root, "schema_version"), 1);
  EXPECT_STREQ(json_object_get_string_member(root, "stream_id"), "cam-a");
  EXPECT_EQ(json_object_get_int_member(root, "seq"), 0);
  EXPECT_EQ(json_object_get_int_member(root, "pts"), 5 * static_cast<gint64>(GST_MSECOND));
  EXPECT_EQ(json_object_get_int_member(root, "width"), 320);
  EXPECT_EQ(json_object_get_int_member(root, "height"), 240);
  EXPECT_TRUE(json_object_get_null_member(root, "features"));
  EXPECT_TRUE(json_object_get_null_member(root, "motion"));
  EXPECT_TRUE(json_object_get_null_member(root, "tracks"));
  EXPECT_EQ(json_array_get_length(json_object_get_array_member(root, "objects")), 0u);
  gst_buffer_unref(buffer);
}

TEST(ResultsSerializer, PtsNoneIsNullAndFramesAreNumbered) {
  ResultsSerializer serializer;
  for (int i = 0; i < 3; ++i) {
    GstBuffer* buffer = frame_buffer(GST_CLOCK_TIME_NONE);
    Parsed parsed(serialize(&serializer, buffer, options_for("s")));
    ASSERT_NE(parsed.root(), nullptr);
    EXPECT_TRUE(json_object_get_null_member(parsed.root(), "pts"));
    EXPECT_EQ(json_object_get_int_member(parsed.root(), "seq"), i);
    // No caps size and no keypoints meta: the size is unknown.
    EXPECT_TRUE(json_object_get_null_member(parsed.root(), "width"));
    gst_buffer_unref(buffer);
  }
  EXPECT_EQ(serializer.frames(), 3u);
}

TEST(ResultsSerializer, FeaturesAndKeypointsAreTheMetasExactly) {
  ResultsSerializer serializer;  // no caps: the meta's size
  GstBuffer* buffer = frame_buffer(0);
  const std::vector<GstKeypoint> keypoints = some_keypoints(5);
  add_keypoints(buffer, keypoints);
  Parsed parsed(serialize(&serializer, buffer, options_for("s", false, true)));
  JsonObject* root = parsed.root();
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(json_object_get_int_member(root, "width"), 640);
  EXPECT_EQ(json_object_get_int_member(root, "height"), 480);
  JsonObject* features = json_object_get_object_member(root, "features");
  EXPECT_STREQ(json_object_get_string_member(features, "method"), "sift");
  EXPECT_EQ(json_object_get_int_member(features, "count"), 5);
  JsonArray* list = json_object_get_array_member(features, "keypoints");
  ASSERT_EQ(json_array_get_length(list), 5u);
  for (guint i = 0; i < 5; ++i) {
    JsonObject* k = json_array_get_object_element(list, i);
    // Floats widen to doubles exactly and json-glib prints 17 digits: no rounding on the way.
    EXPECT_EQ(json_object_get_double_member(k, "x"), static_cast<double>(keypoints[i].x));
    EXPECT_EQ(json_object_get_double_member(k, "y"), static_cast<double>(keypoints[i].y));
    EXPECT_EQ(json_object_get_double_member(k, "size"), static_cast<double>(keypoints[i].size));
    EXPECT_EQ(json_object_get_double_member(k, "angle"), static_cast<double>(keypoints[i].angle));
    EXPECT_EQ(json_object_get_double_member(k, "response"),
              static_cast<double>(keypoints[i].response));
    EXPECT_EQ(json_object_get_int_member(k, "octave"), keypoints[i].octave);
    EXPECT_EQ(json_object_get_int_member(k, "class_id"), -1);
  }
  gst_buffer_unref(buffer);

  // Without include-keypoints only the count.
  buffer = frame_buffer(1);
  add_keypoints(buffer, keypoints);
  Parsed summary(serialize(&serializer, buffer, options_for("s")));
  features = json_object_get_object_member(summary.root(), "features");
  EXPECT_FALSE(json_object_has_member(features, "keypoints"));
  EXPECT_EQ(json_object_get_int_member(features, "count"), 5);
  gst_buffer_unref(buffer);
}

TEST(ResultsSerializer, MotionIsTheTracksMetasMotion) {
  ResultsSerializer serializer;
  GstBuffer* buffer = frame_buffer(0);
  add_keypoints(buffer, some_keypoints(2));
  const GstKeypointMotion motion = motion_of(7, 2);
  add_tracks(buffer, {3, 4}, {2, 5}, motion);
  Parsed parsed(serialize(&serializer, buffer, options_for("s")));
  JsonObject* m = json_object_get_object_member(parsed.root(), "motion");
  ASSERT_NE(m, nullptr);
  EXPECT_STREQ(json_object_get_string_member(m, "model"), "homography");
  EXPECT_EQ(json_object_get_int_member(m, "frame_number"), 7);
  EXPECT_TRUE(json_object_get_boolean_member(m, "valid"));
  EXPECT_TRUE(json_object_get_boolean_member(m, "cumulative_valid"));
  EXPECT_EQ(json_object_get_int_member(m, "matches"), 30);
  EXPECT_EQ(json_object_get_int_member(m, "inliers"), 25);
  JsonArray* matrix = json_object_get_array_member(m, "matrix");
  JsonArray* cumulative = json_object_get_array_member(m, "cumulative");
  ASSERT_EQ(json_array_get_length(matrix), 9u);
  ASSERT_EQ(json_array_get_length(cumulative), 9u);
  for (guint i = 0; i < 9; ++i) {
    EXPECT_EQ(number_at(matrix, i), motion.matrix[i]) << i;
    EXPECT_EQ(number_at(cumulative, i), motion.cumulative[i]) << i;
  }
  gst_buffer_unref(buffer);
}

TEST(ResultsSerializer, TrackItemsAreTheKeypointsPositions) {
  ResultsSerializer serializer;
  GstBuffer* buffer = frame_buffer(0);
  const std::vector<GstKeypoint> keypoints = some_keypoints(3);
  add_keypoints(buffer, keypoints);
  add_tracks(buffer, {11, 12, 13}, {0, 4, 1}, motion_of(4, 5));
  Parsed parsed(serialize(&serializer, buffer, options_for("s", true)));
  JsonObject* tracks = json_object_get_object_member(parsed.root(), "tracks");
  ASSERT_NE(tracks, nullptr);
  EXPECT_EQ(json_object_get_int_member(tracks, "alive"), 5);
  EXPECT_EQ(json_object_get_int_member(tracks, "new"), 1);
  EXPECT_EQ(json_object_get_int_member(tracks, "ended"), 0);  // no frame before it
  JsonArray* items = json_object_get_array_member(tracks, "items");
  ASSERT_EQ(json_array_get_length(items), 3u);
  const std::array<gint64, 3> ids = {11, 12, 13}, ages = {0, 4, 1};
  for (guint i = 0; i < 3; ++i) {
    JsonObject* t = json_array_get_object_element(items, i);
    EXPECT_EQ(json_object_get_int_member(t, "id"), ids[i]);
    EXPECT_EQ(json_object_get_int_member(t, "age"), ages[i]);
    EXPECT_EQ(json_object_get_double_member(t, "x"), static_cast<double>(keypoints[i].x));
    EXPECT_EQ(json_object_get_double_member(t, "y"), static_cast<double>(keypoints[i].y));
  }
  gst_buffer_unref(buffer);
}

TEST(ResultsSerializer, AStaleTracksMetaGivesCountsButNoPositions) {
  // Tracks of 2 keypoints beside 3 keypoints: a filter after the tracker changed the keypoints.
  ResultsSerializer serializer;
  GstBuffer* buffer = frame_buffer(0);
  add_keypoints(buffer, some_keypoints(3));
  add_tracks(buffer, {1, 2}, {0, 0}, motion_of(0, 2));
  Parsed parsed(serialize(&serializer, buffer, options_for("s", true)));
  JsonObject* tracks = json_object_get_object_member(parsed.root(), "tracks");
  EXPECT_EQ(json_object_get_int_member(tracks, "alive"), 2);
  EXPECT_FALSE(json_object_has_member(tracks, "items"));
  gst_buffer_unref(buffer);
}

TEST(TrackCounter, EndedTracksFollowFromTheFrameBefore) {
  TrackCounter counter;
  auto frame = [&](guint64 number, guint alive, std::vector<guint> ages) {
    GstBuffer* buffer = frame_buffer(0);
    std::vector<guint64> ids(ages.size(), 1);
    GstKeypointsTracksMeta* meta = add_tracks(buffer, ids, ages, motion_of(number, alive));
    const auto counts = counter.count(*meta);
    gst_buffer_unref(buffer);
    return counts;
  };
  auto c = frame(0, 4, {0, 0, 0, 0});
  EXPECT_EQ(c.alive, 4u);
  EXPECT_EQ(c.born, 4u);
  EXPECT_EQ(c.ended, 0u);
  // 4 alive before, 1 new, 3 alive now: 2 of the 4 ended.
  c = frame(1, 3, {1, 0, 1});
  EXPECT_EQ(c.born, 1u);
  EXPECT_EQ(c.ended, 2u);
  // Waiting tracks count as alive: 3 before, 2 new, 5 alive: none ended.
  c = frame(2, 5, {2, 0, 0});
  EXPECT_EQ(c.ended, 0u);
  // The tracker starts over: the 5 alive before all ended.
  c = frame(0, 2, {0, 0});
  EXPECT_EQ(c.born, 2u);
  EXPECT_EQ(c.ended, 5u);
  // After a gap in what the counter saw, nothing is known to have ended.
  counter.forget();
  c = frame(9, 2, {3, 3});
  EXPECT_EQ(c.ended, 0u);
  // Counts that cannot follow from the frame before (a frame missed) are not negative.
  c = frame(10, 40, {4, 4});
  EXPECT_EQ(c.ended, 0u);
}

TEST(ObjectIds, AnObjectKeepsItsIdWhileFoundFrameAfterFrame) {
  ObjectIds ids;
  const auto first = ids.assign({"cup"});
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(ids.assign({"cup"}), first);
  EXPECT_EQ(ids.assign({"cup", "book"})[0], first[0]);
  const auto both = ids.assign({"book", "cup"});  // order on the buffer does not matter
  EXPECT_EQ(both[1], first[0]);
  // A frame without the cup: it comes back with a new id; the book keeps its own.
  const guint64 book = both[0];
  EXPECT_EQ(ids.assign({"book"})[0], book);
  const auto back = ids.assign({"book", "cup"});
  EXPECT_EQ(back[0], book);
  EXPECT_NE(back[1], first[0]);
  // Two objects of one label (two matchers): told apart by their order.
  const auto two = ids.assign({"cup", "cup"});
  EXPECT_EQ(two[0], back[1]);
  EXPECT_NE(two[1], two[0]);
  EXPECT_EQ(ids.assign({"cup", "cup"}), two);
  // A flush: new ids, never one seen before.
  ids.forget();
  const auto after = ids.assign({"cup"});
  EXPECT_GT(after[0], two[1]);
}

TEST(ResultsSerializer, ObjectsCarryTheirMetaAndAStableId) {
  ResultsSerializer serializer;
  std::vector<gint64> seen;
  for (int frame = 0; frame < 5; ++frame) {
    GstBuffer* buffer = frame_buffer(static_cast<GstClockTime>(frame));
    // Found in frames 0, 1, 3, 4: the id holds over 0-1 and 3-4 and changes across the gap.
    if (frame != 2)
      gst_buffer_add_keypoints_object_meta(buffer, "poster", 640, 480, 200, 100, kHomography.data(),
                                           40, 33);
    Parsed parsed(serialize(&serializer, buffer, options_for("s")));
    JsonArray* objects = json_object_get_array_member(parsed.root(), "objects");
    if (frame == 2) {
      EXPECT_EQ(json_array_get_length(objects), 0u);
      gst_buffer_unref(buffer);
      continue;
    }
    ASSERT_EQ(json_array_get_length(objects), 1u);
    JsonObject* o = json_array_get_object_element(objects, 0);
    seen.push_back(json_object_get_int_member(o, "id"));
    EXPECT_STREQ(json_object_get_string_member(o, "label"), "poster");
    EXPECT_EQ(json_object_get_int_member(o, "matches"), 40);
    EXPECT_EQ(json_object_get_int_member(o, "inliers"), 33);
    EXPECT_EQ(json_object_get_int_member(o, "reference_width"), 200);
    EXPECT_EQ(json_object_get_int_member(o, "reference_height"), 100);
    const GstKeypointsObjectMeta* meta = gst_buffer_get_keypoints_object_meta(buffer);
    JsonArray* corners = json_object_get_array_member(o, "corners");
    ASSERT_EQ(json_array_get_length(corners), 4u);
    for (guint c = 0; c < 4; ++c) {
      JsonArray* xy = json_array_get_array_element(corners, c);
      EXPECT_EQ(number_at(xy, 0), meta->corners[2 * c]);
      EXPECT_EQ(number_at(xy, 1), meta->corners[2 * c + 1]);
    }
    JsonArray* h = json_object_get_array_member(o, "homography");
    for (guint i = 0; i < 9; ++i)
      EXPECT_EQ(number_at(h, i), kHomography[i]);
    gst_buffer_unref(buffer);
  }
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0], seen[1]);
  EXPECT_NE(seen[1], seen[2]);
  EXPECT_EQ(seen[2], seen[3]);
}

TEST(ResultsSerializer, NonFiniteValuesAreNull) {
  ResultsSerializer serializer;
  GstBuffer* buffer = frame_buffer(0);
  std::vector<GstKeypoint> keypoints = some_keypoints(1);
  keypoints[0].response = std::numeric_limits<float>::quiet_NaN();
  keypoints[0].size = std::numeric_limits<float>::infinity();
  add_keypoints(buffer, keypoints);
  GstKeypointsObjectMeta* object = gst_buffer_add_keypoints_object_meta(
      buffer, "poster", 640, 480, 200, 100, kHomography.data(), 40, 33);
  // A probe could write anything into the object meta's plain fields.
  object->corners[3] = std::numeric_limits<double>::infinity();
  const std::string json = serialize(&serializer, buffer, options_for("s", false, true));
  EXPECT_EQ(json.find("nan"), std::string::npos) << json;
  EXPECT_EQ(json.find("inf"), std::string::npos) << json;
  Parsed parsed(json);
  JsonObject* k = json_array_get_object_element(
      json_object_get_array_member(json_object_get_object_member(parsed.root(), "features"),
                                   "keypoints"),
      0);
  EXPECT_TRUE(json_object_get_null_member(k, "response"));
  EXPECT_TRUE(json_object_get_null_member(k, "size"));
  JsonObject* o =
      json_array_get_object_element(json_object_get_array_member(parsed.root(), "objects"), 0);
  JsonArray* corner = json_array_get_array_element(json_object_get_array_member(o, "corners"), 1);
  EXPECT_EQ(json_node_get_node_type(json_array_get_element(corner, 1)), JSON_NODE_NULL);
  gst_buffer_unref(buffer);
}

TEST(ResultsSerializer, ATamperedMetaIsRefusedAndNotCounted) {
  ResultsSerializer serializer;
  GstBuffer* buffer = frame_buffer(0);
  GstKeypointsMeta* meta = add_keypoints(buffer, some_keypoints(3));
  meta->n_keypoints = 1000;  // would send a reader past the array
  std::string json;
  GError* error = nullptr;
  EXPECT_FALSE(serializer.serialize(buffer, options_for("s"), &json, &error));
  ASSERT_NE(error, nullptr);
  EXPECT_TRUE(
      g_error_matches(error, GST_KEYPOINTS_META_ERROR, GST_KEYPOINTS_META_ERROR_INCONSISTENT));
  EXPECT_NE(std::string(error->message).find("1000"), std::string::npos) << error->message;
  g_clear_error(&error);  // reused below: g_set_error() wants it NULL
  EXPECT_EQ(serializer.frames(), 0u);
  meta->n_keypoints = 3;
  gst_buffer_unref(buffer);

  buffer = frame_buffer(0);
  add_keypoints(buffer, some_keypoints(2));
  GstKeypointsTracksMeta* tracks = add_tracks(buffer, {1, 2}, {0, 0}, motion_of(0, 2));
  tracks->n_tracks = 7;
  EXPECT_FALSE(serializer.serialize(buffer, options_for("s"), &json, &error));
  ASSERT_NE(error, nullptr);
  EXPECT_NE(std::string(error->message).find("n_tracks is 7"), std::string::npos) << error->message;
  g_clear_error(&error);
  tracks->n_tracks = 2;
  gst_buffer_unref(buffer);
}

}  // namespace
