/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstkeypointstracksmeta.h"

#include "gstkeypoints-private.h"
#include "gstkeypointsmeta.h"

#include <math.h>
#include <string.h>

static const gdouble identity[9] = {1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0};

GType gst_keypoints_tracks_meta_api_get_type(void) {
  static gsize type = 0;
  /* Registered under the names from before the meta became GstKeypointsTracksMeta
   * ("GstKeypointTracksMetaAPI", and "GstKeypointTracksMeta" for its GstMetaInfo), on
   * purpose: they are the meta's identity at run time, by which code written for the old
   * names may look it up (g_type_from_name(), gst_meta_get_info(), or a future
   * serialisation of the meta between processes). Renaming them would gain nothing. */
  return gst_keypoints_meta_api_type_once(&type, "GstKeypointTracksMetaAPI");
}

void gst_keypoint_motion_init(GstKeypointMotion* motion) {
  g_return_if_fail(motion != NULL);
  memset(motion, 0, sizeof(*motion));
  motion->model = GST_KEYPOINT_MOTION_MODEL_NONE;
  memcpy(motion->matrix, identity, sizeof(identity));
  memcpy(motion->cumulative, identity, sizeof(identity));
}

const gchar* gst_keypoint_motion_model_to_string(GstKeypointMotionModel model) {
  switch (model) {
    case GST_KEYPOINT_MOTION_MODEL_NONE:
      return "none";
    case GST_KEYPOINT_MOTION_MODEL_TRANSLATION:
      return "translation";
    case GST_KEYPOINT_MOTION_MODEL_SIMILARITY:
      return "similarity";
    case GST_KEYPOINT_MOTION_MODEL_AFFINE:
      return "affine";
    case GST_KEYPOINT_MOTION_MODEL_HOMOGRAPHY:
      return "homography";
    default:
      return "unknown";
  }
}

static gboolean model_is_valid(GstKeypointMotionModel model) {
  switch (model) {
    case GST_KEYPOINT_MOTION_MODEL_NONE:
    case GST_KEYPOINT_MOTION_MODEL_TRANSLATION:
    case GST_KEYPOINT_MOTION_MODEL_SIMILARITY:
    case GST_KEYPOINT_MOTION_MODEL_AFFINE:
    case GST_KEYPOINT_MOTION_MODEL_HOMOGRAPHY:
      return TRUE;
    default:
      return FALSE;
  }
}

static gboolean motion_is_valid(const GstKeypointMotion* motion) {
  return model_is_valid(motion->model) && motion->inliers <= motion->matches &&
         gst_keypoints_matrix_is_finite(motion->matrix) &&
         gst_keypoints_matrix_is_finite(motion->cumulative);
}

/* No tracks, and the motion of gst_keypoint_motion_init (identity matrices). */
static gboolean gst_keypoints_tracks_meta_init(GstMeta* meta, gpointer params, GstBuffer* buffer) {
  gst_keypoints_meta_zero_init(meta, params, buffer);
  gst_keypoint_motion_init(&((GstKeypointsTracksMeta*)meta)->motion);
  return TRUE;
}

static void gst_keypoints_tracks_meta_free(GstMeta* meta, GstBuffer* buffer) {
  GstKeypointsTracksMeta* tmeta = (GstKeypointsTracksMeta*)meta;
  (void)buffer;
  g_clear_pointer(&tmeta->track_bytes, g_bytes_unref);
}

/* Adds a meta owning the given reference. Arguments are valid. */
static GstKeypointsTracksMeta* add_meta_take(GstBuffer* buffer, guint width, guint height,
                                             GBytes* track_bytes, const GstKeypointMotion* motion) {
  GstKeypointsTracksMeta* meta =
      (GstKeypointsTracksMeta*)gst_buffer_add_meta(buffer, GST_KEYPOINTS_TRACKS_META_INFO, NULL);
  if (meta == NULL) {
    g_bytes_unref(track_bytes);
    return NULL;
  }
  meta->width = width;
  meta->height = height;
  meta->track_bytes = track_bytes;
  meta->tracks = g_bytes_get_data(track_bytes, NULL);
  meta->n_tracks = (guint)(g_bytes_get_size(track_bytes) / sizeof(GstKeypointTrack));
  meta->motion = *motion;
  return meta;
}

GstKeypointsTracksMeta* gst_buffer_add_keypoints_tracks_meta(GstBuffer* buffer, guint width,
                                                             guint height,
                                                             const GstKeypointTrack* tracks,
                                                             guint n_tracks,
                                                             const GstKeypointMotion* motion) {
  gsize size;

  g_return_val_if_fail(GST_IS_BUFFER(buffer), NULL);
  g_return_val_if_fail(gst_buffer_is_writable(buffer), NULL);
  g_return_val_if_fail(width > 0 && height > 0, NULL);
  g_return_val_if_fail(n_tracks == 0 || tracks != NULL, NULL);
  g_return_val_if_fail(g_size_checked_mul(&size, n_tracks, sizeof(GstKeypointTrack)), NULL);
  g_return_val_if_fail(motion != NULL && motion_is_valid(motion), NULL);

  return add_meta_take(buffer, width, height, g_bytes_new(tracks, size), motion);
}

GstKeypointsTracksMeta* gst_buffer_add_keypoints_tracks_meta_from_bytes(
    GstBuffer* buffer, guint width, guint height, GBytes* tracks, const GstKeypointMotion* motion) {
  gsize size;

  g_return_val_if_fail(GST_IS_BUFFER(buffer), NULL);
  g_return_val_if_fail(gst_buffer_is_writable(buffer), NULL);
  g_return_val_if_fail(width > 0 && height > 0, NULL);
  g_return_val_if_fail(tracks != NULL, NULL);
  size = g_bytes_get_size(tracks);
  g_return_val_if_fail(size % sizeof(GstKeypointTrack) == 0, NULL);
  g_return_val_if_fail(size / sizeof(GstKeypointTrack) <= G_MAXUINT, NULL);
  g_return_val_if_fail(motion != NULL && motion_is_valid(motion), NULL);

  return add_meta_take(buffer, width, height, g_bytes_ref(tracks), motion);
}

GstKeypointsTracksMeta* gst_buffer_get_keypoints_tracks_meta(GstBuffer* buffer) {
  g_return_val_if_fail(GST_IS_BUFFER(buffer), NULL);
  return (GstKeypointsTracksMeta*)gst_buffer_get_meta(buffer, GST_KEYPOINTS_TRACKS_META_API_TYPE);
}

gboolean gst_keypoints_tracks_meta_validate(const GstKeypointsTracksMeta* meta, GError** error) {
  gsize held;

  g_return_val_if_fail(meta != NULL, FALSE);
  g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
  if (meta->meta.info == NULL || meta->meta.info->api != GST_KEYPOINTS_TRACKS_META_API_TYPE ||
      meta->track_bytes == NULL)
    return gst_keypoints_meta_set_inconsistent(
        error, "GstKeypointsTracksMeta: not made by gst_buffer_add_keypoints_tracks_meta()");
  if (meta->width == 0 || meta->height == 0)
    return gst_keypoints_meta_set_inconsistent(
        error, "GstKeypointsTracksMeta: frame size %ux%u is empty", meta->width, meta->height);
  held = g_bytes_get_size(meta->track_bytes);
  if ((gsize)meta->n_tracks != held / sizeof(GstKeypointTrack))
    return gst_keypoints_meta_set_inconsistent(
        error, "GstKeypointsTracksMeta: n_tracks is %u but the track array holds %" G_GSIZE_FORMAT,
        meta->n_tracks, held / sizeof(GstKeypointTrack));
  if ((gconstpointer)meta->tracks != g_bytes_get_data(meta->track_bytes, NULL))
    return gst_keypoints_meta_set_inconsistent(
        error, "GstKeypointsTracksMeta: tracks does not point at the meta's track array");
  if (!motion_is_valid(&meta->motion))
    return gst_keypoints_meta_set_inconsistent(
        error,
        "GstKeypointsTracksMeta: motion model %d, %u inliers of %u matches or a matrix not finite",
        (gint)meta->motion.model, meta->motion.inliers, meta->motion.matches);
  return TRUE;
}

/* The meta when it passes gst_keypoints_tracks_meta_validate(); NULL with a critical naming
 * `where` otherwise. */
static const GstKeypointsTracksMeta* consistent_or_critical(const GstKeypointsTracksMeta* meta,
                                                            const gchar* where) {
  GError* error = NULL;
  if (gst_keypoints_tracks_meta_validate(meta, &error))
    return meta;
  gst_keypoints_meta_critical_inconsistent(where, error);
  return NULL;
}

GstBuffer* gst_keypoints_tracks_meta_get_tracks_buffer(const GstKeypointsTracksMeta* meta) {
  g_return_val_if_fail(meta != NULL, NULL);
  if (consistent_or_critical(meta, G_STRFUNC) == NULL)
    return NULL;
  /* Wrapped memory needs a data pointer, which empty GBytes may lack. */
  if (g_bytes_get_size(meta->track_bytes) == 0) {
    return gst_buffer_new();
  }
  return gst_buffer_new_wrapped_bytes(meta->track_bytes);
}

/* m := S * m * S^-1 with S = diag(sx, sy, 1): the same motion in coordinates scaled by S.
 * Any finite matrix is valid, so an entry near the largest double can overflow (or a frame size
 * far larger than the output's, scaled down): then m becomes the identity and *estimated FALSE,
 * as for a motion not estimated, rather than a meta that validate refuses. */
static void scale_matrix(gdouble* m, gboolean* estimated, gdouble sx, gdouble sy) {
  const gdouble row_scale[3] = {sx, sy, 1.0};
  const gdouble column_scale[3] = {1.0 / sx, 1.0 / sy, 1.0};
  gdouble scaled[9];
  guint r, c;
  for (r = 0; r < 3; r++) {
    for (c = 0; c < 3; c++) {
      scaled[r * 3 + c] = m[r * 3 + c] * (row_scale[r] * column_scale[c]);
    }
  }
  if (gst_keypoints_matrix_is_finite(scaled)) {
    memcpy(m, scaled, sizeof(scaled));
  } else {
    memcpy(m, identity, sizeof(identity));
    *estimated = FALSE;
  }
}

static gboolean gst_keypoints_tracks_meta_transform(GstBuffer* dest, GstMeta* meta,
                                                    GstBuffer* buffer, GQuark type, gpointer data) {
  const GstKeypointsTracksMeta* src = (const GstKeypointsTracksMeta*)meta;
  (void)buffer;

  /* As for GstKeypointsMeta: a changed meta is dropped rather than carried on. */
  if ((GST_META_TRANSFORM_IS_COPY(type) || GST_VIDEO_META_TRANSFORM_IS_SCALE(type)) &&
      consistent_or_critical(src, "GstKeypointsTracksMeta transform (dropped)") == NULL) {
    return FALSE;
  }
  if (GST_META_TRANSFORM_IS_COPY(type)) {
    /* Region copies too: a buffer region is still the whole frame for video. */
    return add_meta_take(dest, src->width, src->height, g_bytes_ref(src->track_bytes),
                         &src->motion) != NULL;
  }
  if (GST_VIDEO_META_TRANSFORM_IS_SCALE(type)) {
    const GstVideoMetaTransform* scale = data;
    const gint width = GST_VIDEO_INFO_WIDTH(scale->out_info);
    const gint height = GST_VIDEO_INFO_HEIGHT(scale->out_info);
    GstKeypointMotion motion = src->motion;

    if (width <= 0 || height <= 0) {
      return FALSE;
    }
    /* Tracks are per keypoint and carry no coordinates; only the motions change. */
    if ((guint)width != src->width || (guint)height != src->height) {
      const gdouble sx = (gdouble)width / src->width;
      const gdouble sy = (gdouble)height / src->height;
      scale_matrix(motion.matrix, &motion.valid, sx, sy);
      scale_matrix(motion.cumulative, &motion.cumulative_valid, sx, sy);
    }
    return add_meta_take(dest, (guint)width, (guint)height, g_bytes_ref(src->track_bytes),
                         &motion) != NULL;
  }
  return FALSE;
}

const GstMetaInfo* gst_keypoints_tracks_meta_get_info(void) {
  static const GstMetaInfo* info = NULL;
  /* The name from before the rename, as for the API type. */
  return gst_keypoints_meta_info_once(
      &info, GST_KEYPOINTS_TRACKS_META_API_TYPE, "GstKeypointTracksMeta",
      sizeof(GstKeypointsTracksMeta), gst_keypoints_tracks_meta_init,
      gst_keypoints_tracks_meta_free, gst_keypoints_tracks_meta_transform);
}

/* The names from before the rename (the header's compatibility part): exported wrappers, so that
 * applications linked against them keep working. */

GType gst_keypoint_tracks_meta_api_get_type(void) {
  return gst_keypoints_tracks_meta_api_get_type();
}

const GstMetaInfo* gst_keypoint_tracks_meta_get_info(void) {
  return gst_keypoints_tracks_meta_get_info();
}

GstKeypointsTracksMeta* gst_buffer_add_keypoint_tracks_meta(GstBuffer* buffer, guint width,
                                                            guint height,
                                                            const GstKeypointTrack* tracks,
                                                            guint n_tracks,
                                                            const GstKeypointMotion* motion) {
  return gst_buffer_add_keypoints_tracks_meta(buffer, width, height, tracks, n_tracks, motion);
}

GstKeypointsTracksMeta* gst_buffer_add_keypoint_tracks_meta_from_bytes(
    GstBuffer* buffer, guint width, guint height, GBytes* tracks, const GstKeypointMotion* motion) {
  return gst_buffer_add_keypoints_tracks_meta_from_bytes(buffer, width, height, tracks, motion);
}

GstKeypointsTracksMeta* gst_buffer_get_keypoint_tracks_meta(GstBuffer* buffer) {
  return gst_buffer_get_keypoints_tracks_meta(buffer);
}

GstBuffer* gst_keypoint_tracks_meta_get_tracks_buffer(const GstKeypointsTracksMeta* meta) {
  return gst_keypoints_tracks_meta_get_tracks_buffer(meta);
}
