/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstkeypointsobjectmeta.h"

#include "gstkeypoints-private.h"

#include <math.h>
#include <string.h>

GType gst_keypoints_object_meta_api_get_type(void) {
  static gsize type = 0;
  /* Registered under the names from before the meta became GstKeypointsObjectMeta
   * ("GstKeypointObjectMetaAPI", and "GstKeypointObjectMeta" for its GstMetaInfo), on
   * purpose: they are the meta's identity at run time, by which code written for the old
   * names may look it up (g_type_from_name(), gst_meta_get_info(), or a future
   * serialisation of the meta between processes). Renaming them would gain nothing. */
  return gst_keypoints_meta_api_type_once(&type, "GstKeypointObjectMetaAPI");
}

/* The reference's corner pixel centres mapped by h; FALSE when one does not map to a finite
 * point (it would lie on or past the horizon). */
static gboolean project_corners(const gdouble* h, guint reference_width, guint reference_height,
                                gdouble* corners) {
  const gdouble right = (gdouble)reference_width - 1.0;
  const gdouble bottom = (gdouble)reference_height - 1.0;
  const gdouble reference[8] = {0.0, 0.0, right, 0.0, right, bottom, 0.0, bottom};
  guint i;

  for (i = 0; i < 4; i++) {
    const gdouble x = reference[2 * i];
    const gdouble y = reference[2 * i + 1];
    const gdouble w = h[6] * x + h[7] * y + h[8];
    const gdouble px = (h[0] * x + h[1] * y + h[2]) / w;
    const gdouble py = (h[3] * x + h[4] * y + h[5]) / w;
    if (w == 0.0 || !isfinite(px) || !isfinite(py)) {
      return FALSE;
    }
    corners[2 * i] = px;
    corners[2 * i + 1] = py;
  }
  return TRUE;
}

/* Adds a meta for valid arguments; NULL when the corners do not map to finite points. */
static GstKeypointsObjectMeta* add_meta(GstBuffer* buffer, GQuark label, guint width, guint height,
                                        guint reference_width, guint reference_height,
                                        const gdouble* homography, guint matches, guint inliers) {
  gdouble corners[8];
  GstKeypointsObjectMeta* meta;

  if (!project_corners(homography, reference_width, reference_height, corners)) {
    return NULL;
  }
  meta = (GstKeypointsObjectMeta*)gst_buffer_add_meta(buffer, GST_KEYPOINTS_OBJECT_META_INFO, NULL);
  if (meta == NULL) {
    return NULL;
  }
  meta->label = label;
  meta->width = width;
  meta->height = height;
  meta->reference_width = reference_width;
  meta->reference_height = reference_height;
  memcpy(meta->corners, corners, sizeof(corners));
  memcpy(meta->homography, homography, sizeof(meta->homography));
  meta->matches = matches;
  meta->inliers = inliers;
  return meta;
}

GstKeypointsObjectMeta* gst_buffer_add_keypoints_object_meta(
    GstBuffer* buffer, const gchar* label, guint width, guint height, guint reference_width,
    guint reference_height, const gdouble* homography, guint matches, guint inliers) {
  GstKeypointsObjectMeta* meta;

  g_return_val_if_fail(GST_IS_BUFFER(buffer), NULL);
  g_return_val_if_fail(gst_buffer_is_writable(buffer), NULL);
  g_return_val_if_fail(label != NULL && label[0] != '\0', NULL);
  g_return_val_if_fail(width > 0 && height > 0, NULL);
  g_return_val_if_fail(reference_width > 0 && reference_height > 0, NULL);
  g_return_val_if_fail(homography != NULL && gst_keypoints_matrix_is_finite(homography), NULL);
  g_return_val_if_fail(inliers <= matches, NULL);

  meta = add_meta(buffer, g_quark_from_string(label), width, height, reference_width,
                  reference_height, homography, matches, inliers);
  if (meta == NULL) {
    /* Say why: an all-zero or singular homography sends a corner to infinity. */
    g_critical(
        "%s: the homography {%g %g %g; %g %g %g; %g %g %g} does not map every corner of "
        "the %ux%u reference to a finite point of the frame; no meta added",
        G_STRFUNC, homography[0], homography[1], homography[2], homography[3], homography[4],
        homography[5], homography[6], homography[7], homography[8], reference_width,
        reference_height);
  }
  return meta;
}

GstKeypointsObjectMeta* gst_buffer_get_keypoints_object_meta(GstBuffer* buffer) {
  g_return_val_if_fail(GST_IS_BUFFER(buffer), NULL);
  return (GstKeypointsObjectMeta*)gst_buffer_get_meta(buffer, GST_KEYPOINTS_OBJECT_META_API_TYPE);
}

guint gst_buffer_get_n_keypoints_object_metas(GstBuffer* buffer) {
  gpointer state = NULL;
  guint count = 0;

  g_return_val_if_fail(GST_IS_BUFFER(buffer), 0);
  while (gst_buffer_iterate_meta_filtered(buffer, &state, GST_KEYPOINTS_OBJECT_META_API_TYPE))
    count++;
  return count;
}

GstKeypointsObjectMeta* gst_buffer_get_keypoints_object_meta_nth(GstBuffer* buffer, guint index) {
  gpointer state = NULL;
  GstMeta* meta;
  guint i = 0;

  g_return_val_if_fail(GST_IS_BUFFER(buffer), NULL);
  while ((meta = gst_buffer_iterate_meta_filtered(buffer, &state,
                                                  GST_KEYPOINTS_OBJECT_META_API_TYPE)) != NULL) {
    if (i++ == index)
      return (GstKeypointsObjectMeta*)meta;
  }
  return NULL;
}

GstKeypointsObjectMeta* gst_buffer_get_keypoints_object_meta_by_label(GstBuffer* buffer,
                                                                      const gchar* label) {
  gpointer state = NULL;
  GstMeta* meta;
  GQuark quark;

  g_return_val_if_fail(GST_IS_BUFFER(buffer), NULL);
  g_return_val_if_fail(label != NULL, NULL);
  /* A label no meta was ever made with has no quark, and no meta has it. */
  quark = g_quark_try_string(label);
  if (quark == 0) {
    return NULL;
  }
  while ((meta = gst_buffer_iterate_meta_filtered(buffer, &state,
                                                  GST_KEYPOINTS_OBJECT_META_API_TYPE)) != NULL) {
    if (((GstKeypointsObjectMeta*)meta)->label == quark) {
      return (GstKeypointsObjectMeta*)meta;
    }
  }
  return NULL;
}

const gchar* gst_keypoints_object_meta_get_label(const GstKeypointsObjectMeta* meta) {
  g_return_val_if_fail(meta != NULL, NULL);
  return g_quark_to_string(meta->label);
}

static gboolean gst_keypoints_object_meta_transform(GstBuffer* dest, GstMeta* meta,
                                                    GstBuffer* buffer, GQuark type, gpointer data) {
  const GstKeypointsObjectMeta* src = (const GstKeypointsObjectMeta*)meta;
  (void)buffer;

  if (GST_META_TRANSFORM_IS_COPY(type)) {
    /* Region copies too: a buffer region is still the whole frame for video. */
    return add_meta(dest, src->label, src->width, src->height, src->reference_width,
                    src->reference_height, src->homography, src->matches, src->inliers) != NULL;
  }
  if (GST_VIDEO_META_TRANSFORM_IS_SCALE(type)) {
    const GstVideoMetaTransform* scale = data;
    const gint width = GST_VIDEO_INFO_WIDTH(scale->out_info);
    const gint height = GST_VIDEO_INFO_HEIGHT(scale->out_info);
    gdouble homography[9];
    guint c;

    if (width <= 0 || height <= 0) {
      return FALSE;
    }
    /* Scaled as GstKeypointsMeta scales its keypoints, x' = x * sx: the frame side of the
     * homography (its rows) takes the scale, the reference side stays. */
    memcpy(homography, src->homography, sizeof(homography));
    for (c = 0; c < 3; c++) {
      homography[c] *= (gdouble)width / src->width;
      homography[3 + c] *= (gdouble)height / src->height;
    }
    return add_meta(dest, src->label, (guint)width, (guint)height, src->reference_width,
                    src->reference_height, homography, src->matches, src->inliers) != NULL;
  }
  return FALSE;
}

const GstMetaInfo* gst_keypoints_object_meta_get_info(void) {
  static const GstMetaInfo* info = NULL;
  /* The name from before the rename, as for the API type. */
  return gst_keypoints_meta_info_once(&info, GST_KEYPOINTS_OBJECT_META_API_TYPE,
                                      "GstKeypointObjectMeta", sizeof(GstKeypointsObjectMeta),
                                      gst_keypoints_meta_zero_init, NULL,
                                      gst_keypoints_object_meta_transform);
}

/* The names from before the rename (the header's compatibility part): exported wrappers, so that
 * applications linked against them keep working. */

GType gst_keypoint_object_meta_api_get_type(void) {
  return gst_keypoints_object_meta_api_get_type();
}

const GstMetaInfo* gst_keypoint_object_meta_get_info(void) {
  return gst_keypoints_object_meta_get_info();
}

GstKeypointsObjectMeta* gst_buffer_add_keypoint_object_meta(
    GstBuffer* buffer, const gchar* label, guint width, guint height, guint reference_width,
    guint reference_height, const gdouble* homography, guint matches, guint inliers) {
  return gst_buffer_add_keypoints_object_meta(buffer, label, width, height, reference_width,
                                              reference_height, homography, matches, inliers);
}

GstKeypointsObjectMeta* gst_buffer_get_keypoint_object_meta(GstBuffer* buffer) {
  return gst_buffer_get_keypoints_object_meta(buffer);
}

GstKeypointsObjectMeta* gst_buffer_get_keypoint_object_meta_by_label(GstBuffer* buffer,
                                                                     const gchar* label) {
  return gst_buffer_get_keypoints_object_meta_by_label(buffer, label);
}

const gchar* gst_keypoint_object_meta_get_label(const GstKeypointsObjectMeta* meta) {
  return gst_keypoints_object_meta_get_label(meta);
}
