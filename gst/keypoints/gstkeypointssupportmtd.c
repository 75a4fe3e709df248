/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstkeypointssupportmtd.h"

#include <gst/video/video.h>
#include <string.h>

/* What the relation meta stores: the count, then the indices. */
typedef struct {
  guint32 n_indices;
  guint32 indices[];
} SupportData;

/* The indices point into the buffer's GstKeypointsMeta, which copies and scales keep whole and
 * in order (a region copy too: it still describes the whole frame); any other transform drops
 * that meta, and this result with it. */
static gboolean support_mtd_transform(GstBuffer* transbuf, GstAnalyticsMtd* transmtd,
                                      GstBuffer* buffer, GQuark type, gpointer data) {
  (void)transbuf;
  (void)transmtd;
  (void)buffer;
  (void)data;
  return GST_META_TRANSFORM_IS_COPY(type) || GST_VIDEO_META_TRANSFORM_IS_SCALE(type);
}

/* Named fields: the others (the clear function of 1.26, the padding) stay zero on every
 * GStreamer from 1.24 on. */
static const GstAnalyticsMtdImpl support_mtd_impl = {
    .name = "GstKeypointsSupportMtd",
    .mtd_meta_transform = support_mtd_transform,
};

GstAnalyticsMtdType gst_keypoints_support_mtd_get_mtd_type(void) {
  return (GstAnalyticsMtdType)&support_mtd_impl;
}

gboolean gst_keypoints_support_mtd_add(GstAnalyticsRelationMeta* meta, const guint32* indices,
                                       guint n_indices, GstKeypointsSupportMtd* mtd) {
  GstAnalyticsMtd handle;
  SupportData* stored;
  gsize bytes;

  g_return_val_if_fail(meta != NULL, FALSE);
  g_return_val_if_fail(indices != NULL || n_indices == 0, FALSE);
  /* On 32-bit systems a count can overflow the size. */
  g_return_val_if_fail(g_size_checked_mul(&bytes, n_indices, sizeof(guint32)) &&
                           bytes <= G_MAXSIZE - sizeof(SupportData),
                       FALSE);

  stored = gst_analytics_relation_meta_add_mtd(meta, &support_mtd_impl, sizeof(SupportData) + bytes,
                                               &handle);
  if (stored == NULL) {
    return FALSE;
  }
  stored->n_indices = n_indices;
  if (n_indices > 0) {
    memcpy(stored->indices, indices, bytes);
  }
  if (mtd != NULL) {
    *mtd = handle;
  }
  return TRUE;
}

const guint32* gst_keypoints_support_mtd_get_indices(const GstKeypointsSupportMtd* mtd,
                                                     guint* n_indices) {
  const SupportData* stored;

  g_return_val_if_fail(mtd != NULL && mtd->meta != NULL, NULL);
  g_return_val_if_fail(n_indices != NULL, NULL);
  *n_indices = 0;
  if (gst_analytics_mtd_get_mtd_type(mtd) != gst_keypoints_support_mtd_get_mtd_type()) {
    return NULL;
  }
  stored = gst_analytics_relation_meta_get_mtd_data(mtd->meta, mtd->id);
  /* The size the relation meta keeps must hold the count it claims. */
  if (stored == NULL || gst_analytics_mtd_get_size(mtd) <
                            sizeof(SupportData) + (gsize)stored->n_indices * sizeof(guint32)) {
    g_critical("GstKeypointsSupportMtd %u holds fewer indices than its count", mtd->id);
    return NULL;
  }
  *n_indices = stored->n_indices;
  return stored->indices;
}

gboolean gst_keypoints_support_mtd_get_related(GstAnalyticsRelationMeta* meta, guint result_id,
                                               GstKeypointsSupportMtd* mtd) {
  gpointer state = NULL;

  g_return_val_if_fail(meta != NULL, FALSE);
  g_return_val_if_fail(mtd != NULL, FALSE);
  return gst_analytics_relation_meta_get_direct_related(
      meta, result_id, GST_ANALYTICS_REL_TYPE_RELATE_TO, gst_keypoints_support_mtd_get_mtd_type(),
      &state, mtd);
}
