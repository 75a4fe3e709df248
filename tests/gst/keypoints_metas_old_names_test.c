/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The tracks and object metas by their names from before the rename (GstKeypointTracksMeta,
 * gst_buffer_get_keypoint_object_meta, GST_KEYPOINT_TRACKS_META_API_TYPE, ...), from C and through
 * the old headers only, as an application built against them does: they are deprecated but still
 * compile and link, and reach the same metas as the GstKeypoints names. The deprecation warnings
 * are silenced around each use. */
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointobjectmeta.h>
#include <gst/keypoints/gstkeypointtracksmeta.h>
#include <string.h>

static const GstKeypointTrack sample_tracks[3] = {{1, -1, 0}, {7, 0, 4}, {42, 1, 9}};

static const gdouble shift[9] = {1.0, 0.0, 10.0, 0.0, 1.0, 20.0, 0.0, 0.0, 1.0};

static GstKeypointMotion sample_motion(void) {
  GstKeypointMotion motion;
  gst_keypoint_motion_init(&motion);
  motion.model = GST_KEYPOINT_MOTION_MODEL_TRANSLATION;
  motion.frame_number = 3;
  motion.matches = 30;
  motion.inliers = 25;
  return motion;
}

static void test_api_types_and_infos_are_the_same(void) {
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  g_assert_true(gst_keypoint_tracks_meta_api_get_type() ==
                gst_keypoints_tracks_meta_api_get_type());
  g_assert_true(GST_KEYPOINT_TRACKS_META_API_TYPE == GST_KEYPOINTS_TRACKS_META_API_TYPE);
  g_assert_true(gst_keypoint_tracks_meta_get_info() == gst_keypoints_tracks_meta_get_info());
  g_assert_true(GST_KEYPOINT_TRACKS_META_INFO == GST_KEYPOINTS_TRACKS_META_INFO);
  g_assert_true(gst_keypoint_object_meta_api_get_type() ==
                gst_keypoints_object_meta_api_get_type());
  g_assert_true(GST_KEYPOINT_OBJECT_META_API_TYPE == GST_KEYPOINTS_OBJECT_META_API_TYPE);
  g_assert_true(gst_keypoint_object_meta_get_info() == gst_keypoints_object_meta_get_info());
  g_assert_true(GST_KEYPOINT_OBJECT_META_INFO == GST_KEYPOINTS_OBJECT_META_INFO);
  /* The old type names are the same types. */
  g_assert_cmpuint(sizeof(GstKeypointTracksMeta), ==, sizeof(GstKeypointsTracksMeta));
  g_assert_cmpuint(sizeof(GstKeypointObjectMeta), ==, sizeof(GstKeypointsObjectMeta));
  G_GNUC_END_IGNORE_DEPRECATIONS
  /* Registered under the names they always had. */
  g_assert_cmpstr(g_type_name(GST_KEYPOINTS_TRACKS_META_API_TYPE), ==, "GstKeypointTracksMetaAPI");
  g_assert_cmpstr(g_type_name(GST_KEYPOINTS_OBJECT_META_API_TYPE), ==, "GstKeypointObjectMetaAPI");
  g_assert_true(gst_meta_get_info("GstKeypointTracksMeta") == GST_KEYPOINTS_TRACKS_META_INFO);
  g_assert_true(gst_meta_get_info("GstKeypointObjectMeta") == GST_KEYPOINTS_OBJECT_META_INFO);
}

static void test_tracks_meta_added_by_old_name_is_found_by_new(void) {
  const GstKeypointMotion motion = sample_motion();
  GstBuffer* buffer = gst_buffer_new();
  GstKeypointsTracksMeta* found;
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  GstKeypointTracksMeta* added = gst_buffer_add_keypoint_tracks_meta(
      buffer, 640, 480, sample_tracks, G_N_ELEMENTS(sample_tracks), &motion);
  G_GNUC_END_IGNORE_DEPRECATIONS

  g_assert_nonnull(added);
  found = gst_buffer_get_keypoints_tracks_meta(buffer);
  g_assert_true(found == added);
  g_assert_true(found->meta.info == GST_KEYPOINTS_TRACKS_META_INFO);
  g_assert_cmpuint(found->n_tracks, ==, G_N_ELEMENTS(sample_tracks));
  g_assert_cmpmem(found->tracks, sizeof(sample_tracks), sample_tracks, sizeof(sample_tracks));
  g_assert_cmpint(found->motion.model, ==, GST_KEYPOINT_MOTION_MODEL_TRANSLATION);
  g_assert_cmpuint(found->motion.inliers, ==, 25);
  gst_buffer_unref(buffer);
}

static void test_tracks_meta_added_by_new_name_is_found_by_old(void) {
  const GstKeypointMotion motion = sample_motion();
  GstBuffer* buffer = gst_buffer_new();
  GstKeypointsTracksMeta* added = gst_buffer_add_keypoints_tracks_meta(
      buffer, 640, 480, sample_tracks, G_N_ELEMENTS(sample_tracks), &motion);
  GstBuffer* tracks;
  GstMapInfo map;
  g_assert_nonnull(added);

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  g_assert_true(gst_buffer_get_keypoint_tracks_meta(buffer) == added);
  g_assert_true(gst_buffer_get_meta(buffer, GST_KEYPOINT_TRACKS_META_API_TYPE) == (GstMeta*)added);
  tracks = gst_keypoint_tracks_meta_get_tracks_buffer(added);
  G_GNUC_END_IGNORE_DEPRECATIONS

  g_assert_nonnull(tracks);
  g_assert_true(gst_buffer_map(tracks, &map, GST_MAP_READ));
  g_assert_cmpmem(map.data, map.size, sample_tracks, sizeof(sample_tracks));
  gst_buffer_unmap(tracks, &map);
  gst_buffer_unref(tracks);
  gst_buffer_unref(buffer);
}

static void test_tracks_meta_from_bytes_by_old_name_shares_them(void) {
  const GstKeypointMotion motion = sample_motion();
  GBytes* bytes = g_bytes_new(sample_tracks, sizeof(sample_tracks));
  GstBuffer* buffer = gst_buffer_new();
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  GstKeypointTracksMeta* added =
      gst_buffer_add_keypoint_tracks_meta_from_bytes(buffer, 320, 240, bytes, &motion);
  G_GNUC_END_IGNORE_DEPRECATIONS

  g_assert_nonnull(added);
  g_assert_true(gst_buffer_get_keypoints_tracks_meta(buffer) == added);
  g_assert_true(added->tracks == g_bytes_get_data(bytes, NULL));
  g_assert_cmpuint(added->width, ==, 320);
  gst_buffer_unref(buffer);
  g_bytes_unref(bytes);
}

static void test_object_meta_old_and_new_names_reach_the_same_metas(void) {
  GstBuffer* buffer = gst_buffer_new();
  GstKeypointsObjectMeta* cup;
  GstMeta* meta;
  gpointer state = NULL;
  guint count = 0;
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  GstKeypointObjectMeta* box =
      gst_buffer_add_keypoint_object_meta(buffer, "box", 640, 480, 100, 50, shift, 20, 15);
  G_GNUC_END_IGNORE_DEPRECATIONS
  g_assert_nonnull(box);
  cup = gst_buffer_add_keypoints_object_meta(buffer, "cup", 640, 480, 80, 60, shift, 40, 30);
  g_assert_nonnull(cup);

  /* Added by the old name, found by the new. */
  g_assert_true(gst_buffer_get_keypoints_object_meta(buffer) == box);
  g_assert_true(gst_buffer_get_keypoints_object_meta_by_label(buffer, "box") == box);
  g_assert_cmpstr(gst_keypoints_object_meta_get_label(box), ==, "box");
  g_assert_cmpfloat(box->corners[0], ==, 10.0);
  g_assert_cmpfloat(box->corners[5], ==, 69.0);

  /* Added by the new name, found by the old. */
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  g_assert_true(gst_buffer_get_keypoint_object_meta(buffer) == box);
  g_assert_true(gst_buffer_get_keypoint_object_meta_by_label(buffer, "cup") == cup);
  g_assert_null(gst_buffer_get_keypoint_object_meta_by_label(buffer, "pen"));
  g_assert_cmpstr(gst_keypoint_object_meta_get_label(cup), ==, "cup");
  while ((meta = gst_buffer_iterate_meta_filtered(buffer, &state,
                                                  GST_KEYPOINT_OBJECT_META_API_TYPE)) != NULL) {
    g_assert_true(meta == (GstMeta*)box || meta == (GstMeta*)cup);
    count++;
  }
  G_GNUC_END_IGNORE_DEPRECATIONS
  g_assert_cmpuint(count, ==, 2);
  gst_buffer_unref(buffer);
}

static void test_old_names_refuse_what_the_new_refuse(void) {
  GstBuffer* buffer = gst_buffer_new();
  g_test_expect_message("GstKeypoints", G_LOG_LEVEL_CRITICAL, "*label != NULL*");
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  g_assert_null(gst_buffer_add_keypoint_object_meta(buffer, "", 640, 480, 100, 50, shift, 1, 1));
  G_GNUC_END_IGNORE_DEPRECATIONS
  g_test_assert_expected_messages();
  g_assert_null(gst_buffer_get_keypoints_object_meta(buffer));
  gst_buffer_unref(buffer);
}

int main(int argc, char** argv) {
  g_test_init(&argc, &argv, NULL);
  gst_init(&argc, &argv);
  g_test_add_func("/keypoints-metas-old-names/api-types-and-infos-are-the-same",
                  test_api_types_and_infos_are_the_same);
  g_test_add_func("/keypoints-metas-old-names/tracks-added-by-old-name-found-by-new",
                  test_tracks_meta_added_by_old_name_is_found_by_new);
  g_test_add_func("/keypoints-metas-old-names/tracks-added-by-new-name-found-by-old",
                  test_tracks_meta_added_by_new_name_is_found_by_old);
  g_test_add_func("/keypoints-metas-old-names/tracks-from-bytes-by-old-name",
                  test_tracks_meta_from_bytes_by_old_name_shares_them);
  g_test_add_func("/keypoints-metas-old-names/object-old-and-new-names-same-metas",
                  test_object_meta_old_and_new_names_reach_the_same_metas);
  g_test_add_func("/keypoints-metas-old-names/old-names-refuse-what-the-new-refuse",
                  test_old_names_refuse_what_the_new_refuse);
  return g_test_run();
}
