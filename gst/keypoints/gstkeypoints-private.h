/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the keypoints metas share, private to the library and the plugin (not installed): their
 * registration with GStreamer, once, whichever thread asks first. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <math.h>
#include <string.h>

G_BEGIN_DECLS

/* The meta API type `name`. Every keypoints meta carries pixel positions, so all take the tags of
 * GstKeypointsMeta: elements that only change the colour space keep the meta, scalers transform
 * it, anything else that moves pixels (flip, crop, rotate) drops it. */
static inline GType gst_keypoints_meta_api_type_once(gsize* type, const gchar* name) {
  static const gchar* tags[] = {GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_SIZE_STR,
                                GST_META_TAG_VIDEO_ORIENTATION_STR, NULL};
  if (g_once_init_enter(type))
    g_once_init_leave(type, gst_meta_api_type_register(name, tags));
  return *type;
}

/* The meta's GstMetaInfo, `name`, implementing `api` with the given functions. */
static inline const GstMetaInfo* gst_keypoints_meta_info_once(const GstMetaInfo** info, GType api,
                                                              const gchar* name, gsize size,
                                                              GstMetaInitFunction init,
                                                              GstMetaFreeFunction free_func,
                                                              GstMetaTransformFunction transform) {
  if (g_once_init_enter(info))
    g_once_init_leave(info, gst_meta_register(api, name, size, init, free_func, transform));
  return *info;
}

/* The init of the keypoints metas: every field zero (no keypoints, tracks or object; NULL
 * pointers), as the meta is until its add function fills it. GStreamer sets meta->info first. */
static inline gboolean gst_keypoints_meta_zero_init(GstMeta* meta, gpointer params,
                                                    GstBuffer* buffer) {
  (void)params;
  (void)buffer;
  memset((guint8*)meta + sizeof(GstMeta), 0, meta->info->size - sizeof(GstMeta));
  return TRUE;
}

/* A 3x3 matrix, row by row, whose entries are all finite. */
static inline gboolean gst_keypoints_matrix_is_finite(const gdouble* m) {
  guint i;
  for (i = 0; i < 9; i++) {
    if (!isfinite(m[i]))
      return FALSE;
  }
  return TRUE;
}

/* Sets error (GST_KEYPOINTS_META_ERROR_INCONSISTENT, the formatted message) and returns FALSE. */
G_GNUC_INTERNAL gboolean gst_keypoints_meta_set_inconsistent(GError** error, const gchar* format,
                                                             ...) G_GNUC_PRINTF(2, 3);

/* A g_critical "where: inconsistent <the error's message>"; frees error. */
G_GNUC_INTERNAL void gst_keypoints_meta_critical_inconsistent(const gchar* where, GError* error);

G_END_DECLS
