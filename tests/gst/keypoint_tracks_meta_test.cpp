// SPDX-License-Identifier: LGPL-2.1-or-later
/* GstKeypointsTracksMeta: adding, validation, copies, and the transforms real elements apply. */
#include <gst/check/gstharness.h>
#include <gst/keypoints/gstkeypointstracksmeta.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "gst_test_support.h"

namespace {

std::vector<GstKeypointTrack> sample_tracks() {
  return {
      {1, -1, 0},
      {G_GUINT64_CONSTANT(0x100000000), 7, 12},
      {42, 0, 3},
  };
}

/* A zoom by 1.1 with a shift and a little perspective, as frame 0 -> 1 and 0 -> 5. */
GstKeypointMotion sample_motion() {
  GstKeypointMotion motion;
  gst_keypoint_motion_init(&motion);
  motion.model = GST_KEYPOINT_MOTION_MODEL_HOMOGRAPHY;
  motion.frame_number = 5;
  motion.valid = TRUE;
  const gdouble matrix[9] = {1.1, 0.02, 4.0, -0.01, 1.1, -3.0, 1e-5, 2e-5, 1.0};
  const gdouble cumulative[9] = {1.5, 0.1, 20.0, -0.1, 1.5, -15.0, 5e-5, 1e-4, 1.0};
  std::memcpy(motion.matrix, matrix, sizeof(matrix));
  std::memcpy(motion.cumulative, cumulative, sizeof(cumulative));
  motion.cumulative_valid = TRUE;
  motion.matches = 300;
  motion.inliers = 280;
  motion.tracks_alive = 350;
  return motion;
}

GstKeypointsTracksMeta* add_sample_meta(GstBuffer* buffer, guint width = 640, guint height = 480) {
  const auto tracks = sample_tracks();
  const GstKeypointMotion motion = sample_motion();
  return gst_buffer_add_keypoints_tracks_meta(buffer, width, height, tracks.data(),
                                              static_cast<guint>(tracks.size()), &motion);
}

void expect_same_motion(const GstKeypointMotion& actual, const GstKeypointMotion& expected) {
  EXPECT_EQ(actual.model, expected.model);
  EXPECT_EQ(actual.frame_number, expected.frame_number);
  EXPECT_EQ(actual.valid, expected.valid);
  EXPECT_EQ(actual.cumulative_valid, expected.cumulative_valid);
  EXPECT_EQ(actual.matches, expected.matches);
  EXPECT_EQ(actual.inliers, expected.inliers);
  EXPECT_EQ(actual.tracks_alive, expected.tracks_alive);
  for (int i = 0; i < 9; i++) {
    EXPECT_EQ(actual.matrix[i], expected.matrix[i]) << i;
    EXPECT_EQ(actual.cumulative[i], expected.cumulative[i]) << i;
  }
}

/* (x, y) mapped by the row-major homography m. */
std::array<double, 2> apply(const gdouble* m, double x, double y) {
  const double w = m[6] * x + m[7] * y + m[8];
  return {(m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w};
}

TEST(KeypointTracksMeta, AddCopiesTheTracksAndTheMotion) {
  const auto tracks = sample_tracks();
  GstBuffer* buffer = gst_buffer_new();
  const GstKeypointsTracksMeta* added = add_sample_meta(buffer);
  ASSERT_NE(added, nullptr);
  const GstKeypointsTracksMeta* meta = gst_buffer_get_keypoints_tracks_meta(buffer);
  ASSERT_EQ(meta, added);
  EXPECT_EQ(meta->width, 640u);
  EXPECT_EQ(meta->height, 480u);
  ASSERT_EQ(meta->n_tracks, tracks.size());
  EXPECT_NE(meta->tracks, tracks.data());
  for (size_t i = 0; i < tracks.size(); i++) {
    EXPECT_EQ(meta->tracks[i].track_id, tracks[i].track_id);
    EXPECT_EQ(meta->tracks[i].previous_index, tracks[i].previous_index);
    EXPECT_EQ(meta->tracks[i].age, tracks[i].age);
  }
  expect_same_motion(meta->motion, sample_motion());
  gst_buffer_unref(buffer);
}

TEST(KeypointTracksMeta, ApiAndInfoAreRegisteredWithVideoTags) {
  // The names registered before the rename, kept: they are the meta's identity at run time.
  EXPECT_STREQ(g_type_name(GST_KEYPOINTS_TRACKS_META_API_TYPE), "GstKeypointTracksMetaAPI");
  EXPECT_STREQ(g_type_name(GST_KEYPOINTS_TRACKS_META_INFO->type), "GstKeypointTracksMeta");
  EXPECT_EQ(GST_KEYPOINTS_TRACKS_META_INFO->api, GST_KEYPOINTS_TRACKS_META_API_TYPE);
  for (const char* tag :
       {GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_SIZE_STR, GST_META_TAG_VIDEO_ORIENTATION_STR}) {
    EXPECT_TRUE(
        gst_meta_api_type_has_tag(GST_KEYPOINTS_TRACKS_META_API_TYPE, g_quark_from_string(tag)))
        << tag;
  }
  EXPECT_EQ(sizeof(GstKeypointTrack), 16u);
}

TEST(KeypointTracksMeta, MotionInitIsTheIdentityAndModelsHaveNames) {
  GstKeypointMotion motion;
  std::memset(&motion, 0xff, sizeof(motion));
  gst_keypoint_motion_init(&motion);
  EXPECT_EQ(motion.model, GST_KEYPOINT_MOTION_MODEL_NONE);
  EXPECT_EQ(motion.frame_number, 0u);
  EXPECT_FALSE(motion.valid);
  EXPECT_FALSE(motion.cumulative_valid);
  EXPECT_EQ(motion.matches + motion.inliers + motion.tracks_alive, 0u);
  for (int i = 0; i < 9; i++) {
    EXPECT_EQ(motion.matrix[i], i % 4 == 0 ? 1.0 : 0.0);
    EXPECT_EQ(motion.cumulative[i], i % 4 == 0 ? 1.0 : 0.0);
  }
  EXPECT_STREQ(gst_keypoint_motion_model_to_string(GST_KEYPOINT_MOTION_MODEL_NONE), "none");
  EXPECT_STREQ(gst_keypoint_motion_model_to_string(GST_KEYPOINT_MOTION_MODEL_TRANSLATION),
               "translation");
  EXPECT_STREQ(gst_keypoint_motion_model_to_string(GST_KEYPOINT_MOTION_MODEL_SIMILARITY),
               "similarity");
  EXPECT_STREQ(gst_keypoint_motion_model_to_string(GST_KEYPOINT_MOTION_MODEL_AFFINE), "affine");
  EXPECT_STREQ(gst_keypoint_motion_model_to_string(GST_KEYPOINT_MOTION_MODEL_HOMOGRAPHY),
               "homography");
  EXPECT_STREQ(gst_keypoint_motion_model_to_string(static_cast<GstKeypointMotionModel>(9)),
               "unknown");
}

TEST(KeypointTracksMeta, ZeroTracksAreValidWithoutAnArray) {
  GstKeypointMotion motion;
  gst_keypoint_motion_init(&motion);
  GstBuffer* buffer = gst_buffer_new();
  const GstKeypointsTracksMeta* meta =
      gst_buffer_add_keypoints_tracks_meta(buffer, 16, 16, nullptr, 0, &motion);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->n_tracks, 0u);
  GstBuffer* tracks = gst_keypoints_tracks_meta_get_tracks_buffer(meta);
  ASSERT_NE(tracks, nullptr);
  EXPECT_EQ(gst_buffer_get_size(tracks), 0u);
  gst_buffer_unref(tracks);
  gst_buffer_unref(buffer);
}

TEST(KeypointTracksMeta, FromBytesAndTheTracksBufferShareTheArray) {
  const auto tracks = sample_tracks();
  const GstKeypointMotion motion = sample_motion();
  GBytes* bytes = g_bytes_new(tracks.data(), tracks.size() * sizeof(GstKeypointTrack));
  GstBuffer* buffer = gst_buffer_new();
  const GstKeypointsTracksMeta* meta =
      gst_buffer_add_keypoints_tracks_meta_from_bytes(buffer, 320, 240, bytes, &motion);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->n_tracks, tracks.size());
  EXPECT_EQ(static_cast<gconstpointer>(meta->tracks), g_bytes_get_data(bytes, nullptr));
  g_bytes_unref(bytes); /* the meta holds its own reference */
  EXPECT_EQ(meta->tracks[1].track_id, tracks[1].track_id);

  GstBuffer* shared = gst_keypoints_tracks_meta_get_tracks_buffer(meta);
  ASSERT_NE(shared, nullptr);
  GstMapInfo map;
  ASSERT_TRUE(gst_buffer_map(shared, &map, GST_MAP_READ));
  EXPECT_EQ(static_cast<gconstpointer>(map.data), static_cast<gconstpointer>(meta->tracks));
  EXPECT_EQ(map.size, tracks.size() * sizeof(GstKeypointTrack));
  gst_buffer_unmap(shared, &map);
  gst_buffer_unref(buffer);
  gst_buffer_unref(shared); /* outlives the meta's buffer */
}

TEST(KeypointTracksMeta, InvalidArgumentsAreRefusedWithACritical) {
  const auto tracks = sample_tracks();
  const guint n = static_cast<guint>(tracks.size());
  const GstKeypointMotion good = sample_motion();
  GstBuffer* buffer = gst_buffer_new();
  const int criticals_before = gst_test::LogCounter::criticals();

  EXPECT_EQ(gst_buffer_add_keypoints_tracks_meta(nullptr, 640, 480, tracks.data(), n, &good),
            nullptr);
  EXPECT_EQ(gst_buffer_add_keypoints_tracks_meta(buffer, 0, 480, tracks.data(), n, &good), nullptr);
  EXPECT_EQ(gst_buffer_add_keypoints_tracks_meta(buffer, 640, 0, tracks.data(), n, &good), nullptr);
  EXPECT_EQ(gst_buffer_add_keypoints_tracks_meta(buffer, 640, 480, nullptr, n, &good), nullptr);
  EXPECT_EQ(gst_buffer_add_keypoints_tracks_meta(buffer, 640, 480, tracks.data(), n, nullptr),
            nullptr);
  GstKeypointMotion bad_model = good;
  bad_model.model = static_cast<GstKeypointMotionModel>(5);
  EXPECT_EQ(gst_buffer_add_keypoints_tracks_meta(buffer, 640, 480, tracks.data(), n, &bad_model),
            nullptr);
  GstKeypointMotion more_inliers = good;
  more_inliers.inliers = good.matches + 1;
  EXPECT_EQ(gst_buffer_add_keypoints_tracks_meta(buffer, 640, 480, tracks.data(), n, &more_inliers),
            nullptr);
  GstKeypointMotion not_finite = good;
  not_finite.cumulative[4] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(gst_buffer_add_keypoints_tracks_meta(buffer, 640, 480, tracks.data(), n, &not_finite),
            nullptr);
  not_finite = good;
  not_finite.matrix[2] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(gst_buffer_add_keypoints_tracks_meta(buffer, 640, 480, tracks.data(), n, &not_finite),
            nullptr);
  GBytes* ragged = g_bytes_new(tracks.data(), sizeof(GstKeypointTrack) + 3);
  EXPECT_EQ(gst_buffer_add_keypoints_tracks_meta_from_bytes(buffer, 640, 480, ragged, &good),
            nullptr);
  g_bytes_unref(ragged);
  EXPECT_EQ(gst_buffer_add_keypoints_tracks_meta_from_bytes(buffer, 640, 480, nullptr, &good),
            nullptr);
  EXPECT_EQ(gst_buffer_get_keypoints_tracks_meta(nullptr), nullptr);
  EXPECT_EQ(gst_keypoints_tracks_meta_get_tracks_buffer(nullptr), nullptr);

  GstBuffer* shared = gst_buffer_new();
  GstBuffer* second_ref = gst_buffer_ref(shared);
  EXPECT_EQ(gst_buffer_add_keypoints_tracks_meta(shared, 640, 480, tracks.data(), n, &good),
            nullptr); /* not writable */
  gst_buffer_unref(second_ref);
  gst_buffer_unref(shared);

  EXPECT_EQ(gst_test::LogCounter::criticals() - criticals_before, 14);
  EXPECT_EQ(gst_buffer_get_keypoints_tracks_meta(buffer), nullptr);
  gst_buffer_unref(buffer);
}

TEST(KeypointTracksMeta, BufferCopiesShareTheTracks) {
  GstBuffer* buffer = gst_test::make_video_buffer(GST_VIDEO_FORMAT_RGBA, 64, 48, 0);
  const GstKeypointsTracksMeta* original = add_sample_meta(buffer);

  GstBuffer* copy = gst_buffer_copy(buffer);
  const GstKeypointsTracksMeta* copied = gst_buffer_get_keypoints_tracks_meta(copy);
  ASSERT_NE(copied, nullptr);
  EXPECT_NE(copied, original);
  EXPECT_EQ(copied->tracks, original->tracks);
  EXPECT_EQ(copied->n_tracks, original->n_tracks);
  EXPECT_EQ(copied->width, original->width);
  EXPECT_EQ(copied->height, original->height);
  expect_same_motion(copied->motion, original->motion);

  GstBuffer* region = gst_buffer_copy_region(buffer, GST_BUFFER_COPY_ALL, 0, 64);
  const GstKeypointsTracksMeta* region_meta = gst_buffer_get_keypoints_tracks_meta(region);
  ASSERT_NE(region_meta, nullptr);
  EXPECT_EQ(region_meta->tracks, original->tracks);

  gst_buffer_unref(buffer);
  EXPECT_EQ(copied->tracks[2].track_id, 42u);
  gst_buffer_unref(region);
  gst_buffer_unref(copy);
}

/* A scaled frame's matrices map scaled points exactly as the original maps the original points. */
TEST(KeypointTracksMeta, ScaleTransformConjugatesTheMatricesAndSharesTheTracks) {
  GstBuffer* buffer = gst_buffer_new();
  const GstKeypointsTracksMeta* meta = add_sample_meta(buffer);
  GstVideoInfo in_info = gst_test::video_info(GST_VIDEO_FORMAT_RGBA, 640, 480);
  GstVideoInfo out_info = gst_test::video_info(GST_VIDEO_FORMAT_RGBA, 320, 120);
  GstVideoMetaTransform scale = {&in_info, &out_info};
  GstBuffer* scaled_buffer = gst_buffer_new();

  ASSERT_TRUE(meta->meta.info->transform_func(scaled_buffer, (GstMeta*)meta, buffer,
                                              gst_video_meta_transform_scale_get_quark(), &scale));
  const GstKeypointsTracksMeta* scaled = gst_buffer_get_keypoints_tracks_meta(scaled_buffer);
  ASSERT_NE(scaled, nullptr);
  EXPECT_EQ(scaled->width, 320u);
  EXPECT_EQ(scaled->height, 120u);
  EXPECT_EQ(scaled->tracks, meta->tracks);
  EXPECT_EQ(scaled->n_tracks, meta->n_tracks);
  EXPECT_EQ(scaled->motion.matches, meta->motion.matches);
  EXPECT_EQ(scaled->motion.frame_number, meta->motion.frame_number);
  for (const auto& point : {std::array<double, 2>{0, 0}, {639, 0}, {100, 400}, {320, 240}}) {
    for (const gdouble* m : {meta->motion.matrix, meta->motion.cumulative}) {
      const gdouble* s =
          m == meta->motion.matrix ? scaled->motion.matrix : scaled->motion.cumulative;
      const auto original = apply(m, point[0], point[1]);
      const auto mapped = apply(s, point[0] * 0.5, point[1] * 0.25);
      EXPECT_NEAR(mapped[0], original[0] * 0.5, 1e-9);
      EXPECT_NEAR(mapped[1], original[1] * 0.25, 1e-9);
    }
  }
  gst_buffer_unref(scaled_buffer);

  /* The same size keeps the matrices bit for bit. */
  GstBuffer* same_buffer = gst_buffer_new();
  GstVideoMetaTransform same = {&in_info, &in_info};
  ASSERT_TRUE(meta->meta.info->transform_func(same_buffer, (GstMeta*)meta, buffer,
                                              gst_video_meta_transform_scale_get_quark(), &same));
  expect_same_motion(gst_buffer_get_keypoints_tracks_meta(same_buffer)->motion, meta->motion);
  gst_buffer_unref(same_buffer);
  gst_buffer_unref(buffer);
}

/* The SCALE transform of `meta` to width x height, which must make a meta that passes validate
 * (without a critical: the meta it scales is a valid one). */
const GstKeypointsTracksMeta* scale_valid(GstBuffer* buffer, const GstKeypointsTracksMeta* meta,
                                          GstBuffer* scaled_buffer, gint width, gint height) {
  GstVideoInfo in_info = gst_test::video_info(GST_VIDEO_FORMAT_RGBA, 64, 48);
  GstVideoInfo out_info = gst_test::video_info(GST_VIDEO_FORMAT_RGBA, width, height);
  GstVideoMetaTransform scale = {&in_info, &out_info};
  const int criticals = gst_test::LogCounter::criticals();
  EXPECT_TRUE(meta->meta.info->transform_func(scaled_buffer, (GstMeta*)meta, buffer,
                                              gst_video_meta_transform_scale_get_quark(), &scale));
  EXPECT_EQ(gst_test::LogCounter::criticals(), criticals);
  const GstKeypointsTracksMeta* scaled = gst_buffer_get_keypoints_tracks_meta(scaled_buffer);
  EXPECT_NE(scaled, nullptr);
  if (scaled != nullptr) {
    GError* error = nullptr;
    EXPECT_TRUE(gst_keypoints_tracks_meta_validate(scaled, &error))
        << (error ? error->message : "");
    g_clear_error(&error);
  }
  return scaled;
}

/* A valid motion whose scaled matrix does not fit a double (an entry near 1e308 scaled up, or a
 * frame size far larger than the output's scaled down) is not carried on as infinities, which
 * validate refuses: that matrix becomes the identity and its flag FALSE, as for a motion not
 * estimated, while the other matrix and the tracks are scaled as ever. The keypoints_meta
 * fuzzer found it (tests/fuzz/corpus/keypoints_meta/tracks-scale-motion-overflow*). */
TEST(KeypointTracksMeta, ScaleMarksAMatrixThatOverflowsAsNotEstimated) {
  const gdouble identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  GstKeypointMotion motion = sample_motion();
  const auto tracks = sample_tracks();

  /* Up by 2 in x: the shift 1e308 of the frame-to-frame matrix becomes 2e308. */
  motion.matrix[2] = 1e308;
  GstBuffer* buffer = gst_buffer_new();
  const GstKeypointsTracksMeta* meta = gst_buffer_add_keypoints_tracks_meta(
      buffer, 64, 48, tracks.data(), static_cast<guint>(tracks.size()), &motion);
  ASSERT_NE(meta, nullptr);
  GstBuffer* scaled_buffer = gst_buffer_new();
  const GstKeypointsTracksMeta* scaled = scale_valid(buffer, meta, scaled_buffer, 128, 48);
  ASSERT_NE(scaled, nullptr);
  EXPECT_FALSE(scaled->motion.valid);
  for (int i = 0; i < 9; i++)
    EXPECT_EQ(scaled->motion.matrix[i], identity[i]) << i;
  EXPECT_TRUE(scaled->motion.cumulative_valid);
  EXPECT_EQ(scaled->motion.cumulative[2], motion.cumulative[2] * 2);
  EXPECT_EQ(scaled->motion.cumulative[6], motion.cumulative[6] / 2);
  EXPECT_EQ(scaled->tracks, meta->tracks);
  EXPECT_EQ(scaled->motion.model, motion.model);
  EXPECT_EQ(scaled->motion.matches, motion.matches);
  EXPECT_EQ(scaled->motion.inliers, motion.inliers);
  gst_buffer_unref(scaled_buffer);
  gst_buffer_unref(buffer);

  /* Down from a frame 4e9 wide to 32: the perspective term 1e301 of the cumulative matrix is
   * divided by 32 / 4e9, past the largest double. */
  motion = sample_motion();
  motion.cumulative[6] = 1e301;
  buffer = gst_buffer_new();
  meta = gst_buffer_add_keypoints_tracks_meta(buffer, 4000000000u, 48, tracks.data(),
                                              static_cast<guint>(tracks.size()), &motion);
  ASSERT_NE(meta, nullptr);
  scaled_buffer = gst_buffer_new();
  scaled = scale_valid(buffer, meta, scaled_buffer, 32, 48);
  ASSERT_NE(scaled, nullptr);
  EXPECT_TRUE(scaled->motion.valid);
  EXPECT_DOUBLE_EQ(scaled->motion.matrix[2], motion.matrix[2] * 32 / 4e9);
  EXPECT_FALSE(scaled->motion.cumulative_valid);
  for (int i = 0; i < 9; i++)
    EXPECT_EQ(scaled->motion.cumulative[i], identity[i]) << i;
  gst_buffer_unref(scaled_buffer);
  gst_buffer_unref(buffer);
}

TEST(KeypointTracksMeta, OtherTransformsDropTheMeta) {
  GstBuffer* buffer = gst_buffer_new();
  const GstKeypointsTracksMeta* meta = add_sample_meta(buffer);
  GstBuffer* dest = gst_buffer_new();
  EXPECT_FALSE(meta->meta.info->transform_func(
      dest, (GstMeta*)meta, buffer, g_quark_from_static_string("gpusift-test-rotate"), nullptr));
  EXPECT_EQ(gst_buffer_get_keypoints_tracks_meta(dest), nullptr);
  gst_buffer_unref(dest);
  gst_buffer_unref(buffer);
}

/* Pushes a 640x480 RGBA frame with the sample meta through a pipeline description. */
GstBuffer* run_through(const char* pipeline) {
  GstHarness* harness = gst_harness_new_parse(pipeline);
  gst_harness_set_src_caps_str(harness,
                               gst_test::caps_string(GST_VIDEO_FORMAT_RGBA, 640, 480).c_str());
  GstBuffer* input = gst_test::make_video_buffer(GST_VIDEO_FORMAT_RGBA, 640, 480, 0x80);
  add_sample_meta(input);
  EXPECT_EQ(gst_harness_push(harness, input), GST_FLOW_OK);
  GstBuffer* output = gst_harness_pull(harness);
  gst_harness_teardown(harness);
  return output;
}

TEST(KeypointTracksMetaPipeline, VideoscaleRescalesTheMotion) {
  GstBuffer* output = run_through("videoscale ! capsfilter caps=video/x-raw,width=320,height=240");
  ASSERT_NE(output, nullptr);
  const GstKeypointsTracksMeta* meta = gst_buffer_get_keypoints_tracks_meta(output);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->width, 320u);
  EXPECT_EQ(meta->height, 240u);
  const GstKeypointMotion original = sample_motion();
  const auto expected = apply(original.matrix, 200, 100);
  const auto mapped = apply(meta->motion.matrix, 100, 50);
  EXPECT_NEAR(mapped[0], expected[0] / 2, 1e-9);
  EXPECT_NEAR(mapped[1], expected[1] / 2, 1e-9);
  EXPECT_EQ(meta->n_tracks, sample_tracks().size());
  gst_buffer_unref(output);
}

TEST(KeypointTracksMetaPipeline, VideoconvertKeepsAndVideoflipDropsTheMeta) {
  GstBuffer* converted = run_through("videoconvert ! capsfilter caps=video/x-raw,format=I420");
  ASSERT_NE(converted, nullptr);
  const GstKeypointsTracksMeta* meta = gst_buffer_get_keypoints_tracks_meta(converted);
  ASSERT_NE(meta, nullptr);
  expect_same_motion(meta->motion, sample_motion());
  gst_buffer_unref(converted);

  GstBuffer* flipped = run_through("videoflip video-direction=horiz");
  ASSERT_NE(flipped, nullptr);
  EXPECT_EQ(gst_buffer_get_keypoints_tracks_meta(flipped), nullptr);
  gst_buffer_unref(flipped);
}

/* gst_keypoints_tracks_meta_validate() against changed fields, and the library's readers (the
 * tracks buffer, the COPY and SCALE transforms) refusing them with a critical. */
TEST(KeypointTracksMetaIntegrity, ChangedFieldsAreNamedAndRefused) {
  const struct {
    const char* name;
    void (*apply)(GstKeypointsTracksMeta* meta);
    const char* says;
  } lies[] = {
      {"far too many", [](GstKeypointsTracksMeta* m) { m->n_tracks = m->n_tracks * 1000 + 7; },
       "n_tracks is"},
      {"one more", [](GstKeypointsTracksMeta* m) { m->n_tracks += 1; }, "n_tracks is"},
      {"one fewer", [](GstKeypointsTracksMeta* m) { m->n_tracks -= 1; }, "n_tracks is"},
      {"tracks elsewhere", [](GstKeypointsTracksMeta* m) { m->tracks += 1; },
       "tracks does not point at the meta's track array"},
      {"height 0", [](GstKeypointsTracksMeta* m) { m->height = 0; }, "frame size 640x0 is empty"},
      {"model out of range",
       [](GstKeypointsTracksMeta* m) { m->motion.model = static_cast<GstKeypointMotionModel>(11); },
       "motion model 11"},
      {"more inliers than matches", [](GstKeypointsTracksMeta* m) { m->motion.inliers = 1000; },
       "1000 inliers"},
      {"matrix not finite", [](GstKeypointsTracksMeta* m) { m->motion.cumulative[4] = NAN; },
       "not finite"},
  };
  GstVideoInfo in_info = gst_test::video_info(GST_VIDEO_FORMAT_RGBA, 640, 480);
  GstVideoInfo out_info = gst_test::video_info(GST_VIDEO_FORMAT_RGBA, 320, 240);
  GstVideoMetaTransform scale = {&in_info, &out_info};
  for (const auto& lie : lies) {
    SCOPED_TRACE(lie.name);
    GstBuffer* buffer = gst_buffer_new();
    GstKeypointsTracksMeta* meta = add_sample_meta(buffer);
    ASSERT_TRUE(gst_keypoints_tracks_meta_validate(meta, nullptr));
    lie.apply(meta);
    GError* error = nullptr;
    EXPECT_FALSE(gst_keypoints_tracks_meta_validate(meta, &error));
    ASSERT_NE(error, nullptr);
    EXPECT_EQ(error->domain, GST_KEYPOINTS_META_ERROR);
    EXPECT_NE(std::string(error->message).find(lie.says), std::string::npos) << error->message;
    g_error_free(error);

    const int criticals = gst_test::LogCounter::criticals();
    EXPECT_EQ(gst_keypoints_tracks_meta_get_tracks_buffer(meta), nullptr);
    GstBuffer* copy = gst_buffer_copy(buffer);
    EXPECT_EQ(gst_buffer_get_keypoints_tracks_meta(copy), nullptr);
    GstBuffer* scaled = gst_buffer_new();
    EXPECT_FALSE(meta->meta.info->transform_func(
        scaled, (GstMeta*)meta, buffer, gst_video_meta_transform_scale_get_quark(), &scale));
    EXPECT_EQ(gst_test::LogCounter::criticals(), criticals + 3);
    gst_buffer_unref(scaled);
    gst_buffer_unref(copy);
    gst_buffer_unref(buffer);
  }
}

}  // namespace

int main(int argc, char** argv) {
  gst_test::LogCounter::install();
  gst_init(&argc, &argv);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
