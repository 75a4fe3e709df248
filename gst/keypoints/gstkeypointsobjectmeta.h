/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstKeypointsObjectMeta: a known planar object found in a video frame by keypoint matching.
 *
 * keypointmatcher attaches one per frame in which it finds its reference, beside the
 * GstVideoRegionOfInterestMeta of the same detection. The homography maps a pixel of the
 * reference image onto the frame: (x', y', w') = H (x, y, 1), both in keypoint coordinates (pixel
 * centres at integers). The corners are the reference's corner pixel centres (0, 0),
 * (rw - 1, 0), (rw - 1, rh - 1), (0, rh - 1) mapped by the homography: top-left, top-right,
 * bottom-right, bottom-left of the reference, wherever they land in the frame. Frame coordinates
 * are in the width x height space, which scalers keep equal to the frame's size.
 *
 * Several matchers in a row (one per object) add one meta each: tell them apart by label
 * (gst_buffer_get_keypoints_object_meta_by_label()) or iterate all with
 * gst_buffer_iterate_meta_filtered (buffer, &state, GST_KEYPOINTS_OBJECT_META_API_TYPE); bindings,
 * which cannot hold the iteration's state, count them with
 * gst_buffer_get_n_keypoints_object_metas() and take each with
 * gst_buffer_get_keypoints_object_meta_nth().
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/**
 * GstKeypointsObjectMeta:
 * @meta: the parent #GstMeta
 * @label: the object's label (keypointmatcher's label property) as a quark
 * @width: width of the coordinate space of @corners and @homography
 * @height: height of the coordinate space of @corners and @homography
 * @reference_width: width of the reference image in pixels
 * @reference_height: height of the reference image in pixels
 * @corners: the reference's corner pixel centres in the frame: x, y of its top-left, top-right,
 *   bottom-right and bottom-left corners
 * @homography: reference pixel coordinates to frame coordinates, row-major 3x3
 * @matches: descriptor matches between the reference and the frame
 * @inliers: of those, the ones consistent with @homography
 *
 * Where a reference object lies in one video frame.
 */
typedef struct {
  GstMeta meta;

  GQuark label;
  guint width;
  guint height;
  guint reference_width;
  guint reference_height;
  gdouble corners[8];
  gdouble homography[9];
  guint matches;
  guint inliers;
} GstKeypointsObjectMeta;

/**
 * gst_keypoints_object_meta_api_get_type:
 *
 * Returns: the #GType of the keypoint object meta API.
 */
GType gst_keypoints_object_meta_api_get_type(void);
#define GST_KEYPOINTS_OBJECT_META_API_TYPE (gst_keypoints_object_meta_api_get_type())

/**
 * gst_keypoints_object_meta_get_info:
 *
 * Returns: (transfer none): the #GstMetaInfo of #GstKeypointsObjectMeta.
 */
const GstMetaInfo* gst_keypoints_object_meta_get_info(void);
#define GST_KEYPOINTS_OBJECT_META_INFO (gst_keypoints_object_meta_get_info())

/**
 * gst_buffer_add_keypoints_object_meta:
 * @buffer: a writable #GstBuffer
 * @label: the object's label, not empty
 * @width: width of the frame's coordinate space, > 0
 * @height: height of the frame's coordinate space, > 0
 * @reference_width: width of the reference image, > 0
 * @reference_height: height of the reference image, > 0
 * @homography: (array fixed-size=9): reference to frame, row-major; finite, and every corner of
 *   the reference must map to a finite point
 * @matches: descriptor matches
 * @inliers: matches consistent with @homography, at most @matches
 *
 * Adds a meta; the corners are computed from @homography.
 *
 * Returns: (transfer none) (nullable): the new meta, %NULL on invalid arguments.
 */
GstKeypointsObjectMeta* gst_buffer_add_keypoints_object_meta(
    GstBuffer* buffer, const gchar* label, guint width, guint height, guint reference_width,
    guint reference_height, const gdouble* homography, guint matches, guint inliers);

/**
 * gst_buffer_get_keypoints_object_meta:
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the first keypoint object meta of @buffer, %NULL when it
 *   has none. It lives as long as @buffer keeps it.
 */
GstKeypointsObjectMeta* gst_buffer_get_keypoints_object_meta(GstBuffer* buffer);

/**
 * gst_buffer_get_keypoints_object_meta_by_label:
 * @buffer: a #GstBuffer
 * @label: an object's label
 *
 * Returns: (transfer none) (nullable): the first keypoint object meta of @buffer with @label,
 *   %NULL when it has none.
 */
GstKeypointsObjectMeta* gst_buffer_get_keypoints_object_meta_by_label(GstBuffer* buffer,
                                                                      const gchar* label);

/**
 * gst_buffer_get_n_keypoints_object_metas:
 * @buffer: a #GstBuffer
 *
 * Returns: how many keypoint object metas @buffer carries.
 */
guint gst_buffer_get_n_keypoints_object_metas(GstBuffer* buffer);

/**
 * gst_buffer_get_keypoints_object_meta_nth:
 * @buffer: a #GstBuffer
 * @index: 0 for the first object meta, in the order gst_buffer_iterate_meta_filtered() gives them
 *
 * Returns: (transfer none) (nullable): the @index-th keypoint object meta of @buffer, %NULL past
 *   the last.
 */
GstKeypointsObjectMeta* gst_buffer_get_keypoints_object_meta_nth(GstBuffer* buffer, guint index);

/**
 * gst_keypoints_object_meta_get_label:
 * @meta: a #GstKeypointsObjectMeta
 *
 * Returns: (transfer none): the object's label.
 */
const gchar* gst_keypoints_object_meta_get_label(const GstKeypointsObjectMeta* meta);

/* Compatibility: the names from before the object meta joined the GstKeypoints family
 * (GstKeypointObjectMeta, gst_keypoint_object_meta_*, gst_buffer_add_keypoint_object_meta, ...).
 * Applications built against them still compile (with deprecation warnings) and link: the type is
 * an alias, the macros expand to the old functions, and those are exported wrappers of the new ones
 * that reach the same metas. Bindings see only the new names: the old ones are left out of the
 * introspection data (skip). */

/**
 * GstKeypointObjectMeta: (skip)
 *
 * The former name of #GstKeypointsObjectMeta.
 *
 * Deprecated: Use #GstKeypointsObjectMeta.
 */
typedef GstKeypointsObjectMeta GstKeypointObjectMeta G_DEPRECATED_FOR(GstKeypointsObjectMeta);

/**
 * gst_keypoint_object_meta_api_get_type: (skip)
 *
 * Returns: the #GType of the keypoint object meta API, as
 *   gst_keypoints_object_meta_api_get_type().
 *
 * Deprecated: Use gst_keypoints_object_meta_api_get_type().
 */
G_DEPRECATED_FOR(gst_keypoints_object_meta_api_get_type)
GType gst_keypoint_object_meta_api_get_type(void);
#define GST_KEYPOINT_OBJECT_META_API_TYPE (gst_keypoint_object_meta_api_get_type())

/**
 * gst_keypoint_object_meta_get_info: (skip)
 *
 * Returns: (transfer none): the #GstMetaInfo of #GstKeypointsObjectMeta, as
 *   gst_keypoints_object_meta_get_info().
 *
 * Deprecated: Use gst_keypoints_object_meta_get_info().
 */
G_DEPRECATED_FOR(gst_keypoints_object_meta_get_info)
const GstMetaInfo* gst_keypoint_object_meta_get_info(void);
#define GST_KEYPOINT_OBJECT_META_INFO (gst_keypoint_object_meta_get_info())

/**
 * gst_buffer_add_keypoint_object_meta: (skip)
 * @buffer: a writable #GstBuffer
 * @label: the object's label, not empty
 * @width: width of the frame's coordinate space, > 0
 * @height: height of the frame's coordinate space, > 0
 * @reference_width: width of the reference image, > 0
 * @reference_height: height of the reference image, > 0
 * @homography: (array fixed-size=9): reference to frame, row-major
 * @matches: descriptor matches
 * @inliers: matches consistent with @homography, at most @matches
 *
 * As gst_buffer_add_keypoints_object_meta().
 *
 * Returns: (transfer none) (nullable): the new meta, %NULL on invalid arguments.
 *
 * Deprecated: Use gst_buffer_add_keypoints_object_meta().
 */
G_DEPRECATED_FOR(gst_buffer_add_keypoints_object_meta)
GstKeypointsObjectMeta* gst_buffer_add_keypoint_object_meta(
    GstBuffer* buffer, const gchar* label, guint width, guint height, guint reference_width,
    guint reference_height, const gdouble* homography, guint matches, guint inliers);

/**
 * gst_buffer_get_keypoint_object_meta: (skip)
 * @buffer: a #GstBuffer
 *
 * As gst_buffer_get_keypoints_object_meta().
 *
 * Returns: (transfer none) (nullable): the first keypoint object meta of @buffer, %NULL when it
 *   has none.
 *
 * Deprecated: Use gst_buffer_get_keypoints_object_meta().
 */
G_DEPRECATED_FOR(gst_buffer_get_keypoints_object_meta)
GstKeypointsObjectMeta* gst_buffer_get_keypoint_object_meta(GstBuffer* buffer);

/**
 * gst_buffer_get_keypoint_object_meta_by_label: (skip)
 * @buffer: a #GstBuffer
 * @label: an object's label
 *
 * As gst_buffer_get_keypoints_object_meta_by_label().
 *
 * Returns: (transfer none) (nullable): the first keypoint object meta of @buffer with @label,
 *   %NULL when it has none.
 *
 * Deprecated: Use gst_buffer_get_keypoints_object_meta_by_label().
 */
G_DEPRECATED_FOR(gst_buffer_get_keypoints_object_meta_by_label)
GstKeypointsObjectMeta* gst_buffer_get_keypoint_object_meta_by_label(GstBuffer* buffer,
                                                                     const gchar* label);

/**
 * gst_keypoint_object_meta_get_label: (skip)
 * @meta: a #GstKeypointsObjectMeta
 *
 * As gst_keypoints_object_meta_get_label().
 *
 * Returns: (transfer none): the object's label.
 *
 * Deprecated: Use gst_keypoints_object_meta_get_label().
 */
G_DEPRECATED_FOR(gst_keypoints_object_meta_get_label)
const gchar* gst_keypoint_object_meta_get_label(const GstKeypointsObjectMeta* meta);

G_END_DECLS
