/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstKeypointsSupportMtd: the keypoints behind an analytics result, as a result of GStreamer's
 * analytics library (GStreamer 1.24 and newer), so that a reader can walk from a result to the
 * keypoints that support it. keypointmatcher relates one to each object-detection result it
 * adds (GST_ANALYTICS_REL_TYPE_RELATE_TO, both ways): the indices (ascending, each once) of the
 * frame's keypoints, in the buffer's GstKeypointsMeta, whose matches agree with the object's
 * homography.
 *
 * The data of the result is plain, so that readers without this library can take it through
 * gst_analytics_relation_meta_get_mtd_data() once gst_analytics_mtd_type_get_name() says
 * "GstKeypointsSupportMtd": a guint32 count, then that many guint32 indices, native byte
 * order. This header, and the functions below, exist only in builds against a GStreamer with
 * the analytics library (pkg-config gstreamer-analytics-1.0).
 */
#pragma once

#include <gst/analytics/gstanalyticsmeta.h>
#include <gst/gst.h>

G_BEGIN_DECLS

/**
 * GstKeypointsSupportMtd:
 *
 * A handle on the keypoint support result in a #GstAnalyticsRelationMeta: the #GstAnalyticsMtd
 * of its id and meta.
 *
 * Since: 0.2
 */
typedef struct _GstAnalyticsMtd GstKeypointsSupportMtd;

/**
 * gst_keypoints_support_mtd_get_mtd_type:
 *
 * Returns: the #GstAnalyticsMtdType of keypoint support results.
 *
 * Since: 0.2
 */
GstAnalyticsMtdType gst_keypoints_support_mtd_get_mtd_type(void);

/**
 * gst_keypoints_support_mtd_add:
 * @meta: a #GstAnalyticsRelationMeta
 * @indices: (array length=n_indices): indices into the keypoints of the buffer's
 *   #GstKeypointsMeta
 * @n_indices: how many
 * @mtd: (out) (optional): the new result's handle
 *
 * Adds a keypoint support result holding a copy of @indices.
 *
 * Returns: TRUE when added; FALSE when the relation meta has no room for it.
 *
 * Since: 0.2
 */
gboolean gst_keypoints_support_mtd_add(GstAnalyticsRelationMeta* meta, const guint32* indices,
                                       guint n_indices, GstKeypointsSupportMtd* mtd);

/**
 * gst_keypoints_support_mtd_get_indices:
 * @mtd: a keypoint support result
 * @n_indices: (out): how many indices it holds
 *
 * Returns: (transfer none) (array length=n_indices) (nullable): its indices, valid as long as
 *   the relation meta is; %NULL when @mtd is not a keypoint support result.
 *
 * Since: 0.2
 */
const guint32* gst_keypoints_support_mtd_get_indices(const GstKeypointsSupportMtd* mtd,
                                                     guint* n_indices);

/**
 * gst_keypoints_support_mtd_get_related:
 * @meta: a #GstAnalyticsRelationMeta
 * @result_id: the id of a result in @meta, e.g. an object-detection result's
 * @mtd: (out): the keypoint support result related to it
 *
 * Returns: TRUE when the result with @result_id has a keypoint support result related to it.
 *
 * Since: 0.2
 */
gboolean gst_keypoints_support_mtd_get_related(GstAnalyticsRelationMeta* meta, guint result_id,
                                               GstKeypointsSupportMtd* mtd);

G_END_DECLS
