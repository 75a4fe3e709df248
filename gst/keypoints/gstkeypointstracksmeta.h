/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstKeypointsTracksMeta: keypoint tracks and camera motion attached to a video buffer.
 *
 * Sits beside a GstKeypointsMeta on the same buffer: tracks[i] belongs to keypoints[i] of that
 * meta (n_tracks equals its n_keypoints). The motion matrices are row-major 3x3 homogeneous
 * transforms in the width x height coordinate space that map a point of an earlier frame onto
 * the same scene point in this one: (x', y', w') = M (x, y, 1). The track array is immutable and
 * shared between copies of the meta (reference counted); a scaler rescales the matrices, and one
 * whose scaled entries would not be finite becomes the identity with its flag (motion.valid,
 * motion.cumulative_valid) FALSE, as for a motion not estimated.
 *
 * Bindings: gst_keypoints_tracks_meta_get_tracks_buffer() hands out the track array as a
 * read-only GstBuffer that shares it (16 bytes per track: guint64 id, gint32 previous index,
 * guint32 age).
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include "gstkeypointsmeta.h"

G_BEGIN_DECLS

/**
 * GstKeypointMotionModel:
 * @GST_KEYPOINT_MOTION_MODEL_NONE: no motion is estimated
 * @GST_KEYPOINT_MOTION_MODEL_TRANSLATION: a shift (2 degrees of freedom)
 * @GST_KEYPOINT_MOTION_MODEL_SIMILARITY: rotation, uniform scale and shift (4)
 * @GST_KEYPOINT_MOTION_MODEL_AFFINE: a 2x3 affine map (6)
 * @GST_KEYPOINT_MOTION_MODEL_HOMOGRAPHY: a plane projective map (8)
 *
 * The model fitted to the keypoint matches between two frames.
 */
typedef enum {
  GST_KEYPOINT_MOTION_MODEL_NONE = 0,
  GST_KEYPOINT_MOTION_MODEL_TRANSLATION = 1,
  GST_KEYPOINT_MOTION_MODEL_SIMILARITY = 2,
  GST_KEYPOINT_MOTION_MODEL_AFFINE = 3,
  GST_KEYPOINT_MOTION_MODEL_HOMOGRAPHY = 4,
} GstKeypointMotionModel;

/**
 * GstKeypointTrack:
 * @track_id: the track, from 1 up; an element never gives the same id to two tracks
 * @previous_index: index of the matched keypoint in the previous frame, -1 when the track is new
 *   or resumes after missed frames
 * @age: frames since the track began, 0 on its first frame
 *
 * The track of one keypoint (16 bytes, no padding).
 */
typedef struct {
  guint64 track_id;
  gint32 previous_index;
  guint32 age;
} GstKeypointTrack;

/**
 * GstKeypointMotion:
 * @model: the model fitted
 * @frame_number: frames since tracking started or was reset, 0 on that first frame
 * @valid: @matrix was estimated from this frame's matches
 * @matrix: previous frame to this frame, row-major; the identity unless @valid, as a scaler
 *   leaves a matrix that it cannot express in its coordinates
 * @cumulative_valid: every step from frame 0 to this frame was estimated
 * @cumulative: frame 0 to this frame, row-major; the identity when a scaler could not express it
 *   in its coordinates (@cumulative_valid is then FALSE)
 * @matches: descriptor matches to the previous frame
 * @inliers: of those, the ones consistent with @matrix
 * @tracks_alive: tracks not ended after this frame: seen in it, or missed for a few frames
 *
 * The camera motion of one frame.
 */
typedef struct {
  GstKeypointMotionModel model;
  guint64 frame_number;
  gboolean valid;
  gdouble matrix[9];
  gboolean cumulative_valid;
  gdouble cumulative[9];
  guint matches;
  guint inliers;
  guint tracks_alive;
} GstKeypointMotion;

/**
 * GstKeypointsTracksMeta:
 * @meta: the parent #GstMeta
 * @width: width of the coordinate space of the matrices
 * @height: height of the coordinate space of the matrices
 * @n_tracks: number of tracks, one per keypoint of the buffer's #GstKeypointsMeta
 * @tracks: (type gpointer): the tracks; bindings use
 *   gst_keypoints_tracks_meta_get_tracks_buffer()
 * @motion: the frame's motion
 *
 * Keypoint tracks and camera motion of one video frame. The public fields are read-only, as
 * those of #GstKeypointsMeta are; gst_keypoints_tracks_meta_validate() checks them.
 */
typedef struct {
  GstMeta meta;

  guint width;
  guint height;
  guint n_tracks;
  const GstKeypointTrack* tracks;
  GstKeypointMotion motion;

  /*< private >*/
  GBytes* track_bytes;
} GstKeypointsTracksMeta;

/**
 * gst_keypoints_tracks_meta_api_get_type:
 *
 * Returns: the #GType of the keypoint tracks meta API.
 */
GType gst_keypoints_tracks_meta_api_get_type(void);
#define GST_KEYPOINTS_TRACKS_META_API_TYPE (gst_keypoints_tracks_meta_api_get_type())

/**
 * gst_keypoints_tracks_meta_get_info:
 *
 * Returns: (transfer none): the #GstMetaInfo of #GstKeypointsTracksMeta.
 */
const GstMetaInfo* gst_keypoints_tracks_meta_get_info(void);
#define GST_KEYPOINTS_TRACKS_META_INFO (gst_keypoints_tracks_meta_get_info())

/**
 * gst_buffer_add_keypoints_tracks_meta: (skip)
 * @buffer: a writable #GstBuffer
 * @width: width of the coordinate space, > 0
 * @height: height of the coordinate space, > 0
 * @tracks: (array length=n_tracks) (nullable): the tracks
 * @n_tracks: number of tracks
 * @motion: the frame's motion: a known model, inliers <= matches, finite matrices
 *
 * Adds a meta with a copy of the track array. Bindings use
 * gst_buffer_add_keypoints_tracks_meta_from_bytes().
 *
 * Returns: (transfer none) (nullable): the new meta, %NULL on invalid arguments.
 */
GstKeypointsTracksMeta* gst_buffer_add_keypoints_tracks_meta(GstBuffer* buffer, guint width,
                                                             guint height,
                                                             const GstKeypointTrack* tracks,
                                                             guint n_tracks,
                                                             const GstKeypointMotion* motion);

/**
 * gst_buffer_add_keypoints_tracks_meta_from_bytes:
 * @buffer: a writable #GstBuffer
 * @width: width of the coordinate space, > 0
 * @height: height of the coordinate space, > 0
 * @tracks: n_tracks * sizeof (#GstKeypointTrack) bytes
 * @motion: the frame's motion: a known model, inliers <= matches, finite matrices
 *
 * Adds a meta that shares @tracks: it takes a reference instead of copying.
 *
 * Returns: (transfer none) (nullable): the new meta, %NULL on invalid arguments.
 */
GstKeypointsTracksMeta* gst_buffer_add_keypoints_tracks_meta_from_bytes(
    GstBuffer* buffer, guint width, guint height, GBytes* tracks, const GstKeypointMotion* motion);

/**
 * gst_buffer_get_keypoints_tracks_meta:
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the keypoint tracks meta of @buffer, %NULL when it has
 *   none. It lives as long as @buffer keeps it.
 */
GstKeypointsTracksMeta* gst_buffer_get_keypoints_tracks_meta(GstBuffer* buffer);

/**
 * gst_keypoints_tracks_meta_validate:
 * @meta: a #GstKeypointsTracksMeta
 * @error: (nullable): where to put the cause when the meta is inconsistent
 *
 * Checks the public fields against the meta's track array (n_tracks times 16 bytes, the tracks
 * pointer) and the motion's values (a known model, inliers at most matches, finite matrices).
 * That n_tracks equals the n_keypoints of the buffer's #GstKeypointsMeta is the reader's check:
 * the two metas are separate.
 *
 * Returns: %TRUE when consistent; %FALSE with @error set (%GST_KEYPOINTS_META_ERROR_INCONSISTENT)
 *   otherwise.
 */
gboolean gst_keypoints_tracks_meta_validate(const GstKeypointsTracksMeta* meta, GError** error);

/**
 * gst_keypoints_tracks_meta_get_tracks_buffer:
 * @meta: a #GstKeypointsTracksMeta
 *
 * Returns: (transfer full) (nullable): a read-only buffer whose memory is the meta's track array
 *   (no copy): n_tracks #GstKeypointTrack of 16 bytes each; a buffer without memory when there
 *   are none; %NULL, with a critical warning, when the meta fails
 *   gst_keypoints_tracks_meta_validate().
 */
GstBuffer* gst_keypoints_tracks_meta_get_tracks_buffer(const GstKeypointsTracksMeta* meta);

/**
 * gst_keypoint_motion_init:
 * @motion: (out caller-allocates): the motion to initialise
 *
 * Sets model NONE, every count and the frame number to 0, nothing valid and both matrices to the
 * identity.
 */
void gst_keypoint_motion_init(GstKeypointMotion* motion);

/**
 * gst_keypoint_motion_model_to_string:
 * @model: a #GstKeypointMotionModel
 *
 * Returns: (transfer none): "none", "translation", "similarity", "affine", "homography" or
 *   "unknown".
 */
const gchar* gst_keypoint_motion_model_to_string(GstKeypointMotionModel model);

/* Compatibility: the names from before the tracks meta joined the GstKeypoints family
 * (GstKeypointTracksMeta, gst_keypoint_tracks_meta_*, gst_buffer_add_keypoint_tracks_meta, ...).
 * Applications built against them still compile (with deprecation warnings) and link: the type is
 * an alias, the macros expand to the old functions, and those are exported wrappers of the new ones
 * that reach the same metas. Bindings see only the new names: the old ones are left out of the
 * introspection data (skip). */

/**
 * GstKeypointTracksMeta: (skip)
 *
 * The former name of #GstKeypointsTracksMeta.
 *
 * Deprecated: Use #GstKeypointsTracksMeta.
 */
typedef GstKeypointsTracksMeta GstKeypointTracksMeta G_DEPRECATED_FOR(GstKeypointsTracksMeta);

/**
 * gst_keypoint_tracks_meta_api_get_type: (skip)
 *
 * Returns: the #GType of the keypoint tracks meta API, as
 *   gst_keypoints_tracks_meta_api_get_type().
 *
 * Deprecated: Use gst_keypoints_tracks_meta_api_get_type().
 */
G_DEPRECATED_FOR(gst_keypoints_tracks_meta_api_get_type)
GType gst_keypoint_tracks_meta_api_get_type(void);
#define GST_KEYPOINT_TRACKS_META_API_TYPE (gst_keypoint_tracks_meta_api_get_type())

/**
 * gst_keypoint_tracks_meta_get_info: (skip)
 *
 * Returns: (transfer none): the #GstMetaInfo of #GstKeypointsTracksMeta, as
 *   gst_keypoints_tracks_meta_get_info().
 *
 * Deprecated: Use gst_keypoints_tracks_meta_get_info().
 */
G_DEPRECATED_FOR(gst_keypoints_tracks_meta_get_info)
const GstMetaInfo* gst_keypoint_tracks_meta_get_info(void);
#define GST_KEYPOINT_TRACKS_META_INFO (gst_keypoint_tracks_meta_get_info())

/**
 * gst_buffer_add_keypoint_tracks_meta: (skip)
 * @buffer: a writable #GstBuffer
 * @width: width of the coordinate space, > 0
 * @height: height of the coordinate space, > 0
 * @tracks: (array length=n_tracks) (nullable): the tracks
 * @n_tracks: number of tracks
 * @motion: the frame's motion
 *
 * As gst_buffer_add_keypoints_tracks_meta().
 *
 * Returns: (transfer none) (nullable): the new meta, %NULL on invalid arguments.
 *
 * Deprecated: Use gst_buffer_add_keypoints_tracks_meta().
 */
G_DEPRECATED_FOR(gst_buffer_add_keypoints_tracks_meta)
GstKeypointsTracksMeta* gst_buffer_add_keypoint_tracks_meta(GstBuffer* buffer, guint width,
                                                            guint height,
                                                            const GstKeypointTrack* tracks,
                                                            guint n_tracks,
                                                            const GstKeypointMotion* motion);

/**
 * gst_buffer_add_keypoint_tracks_meta_from_bytes: (skip)
 * @buffer: a writable #GstBuffer
 * @width: width of the coordinate space, > 0
 * @height: height of the coordinate space, > 0
 * @tracks: n_tracks * sizeof (#GstKeypointTrack) bytes
 * @motion: the frame's motion
 *
 * As gst_buffer_add_keypoints_tracks_meta_from_bytes().
 *
 * Returns: (transfer none) (nullable): the new meta, %NULL on invalid arguments.
 *
 * Deprecated: Use gst_buffer_add_keypoints_tracks_meta_from_bytes().
 */
G_DEPRECATED_FOR(gst_buffer_add_keypoints_tracks_meta_from_bytes)
GstKeypointsTracksMeta* gst_buffer_add_keypoint_tracks_meta_from_bytes(
    GstBuffer* buffer, guint width, guint height, GBytes* tracks, const GstKeypointMotion* motion);

/**
 * gst_buffer_get_keypoint_tracks_meta: (skip)
 * @buffer: a #GstBuffer
 *
 * As gst_buffer_get_keypoints_tracks_meta().
 *
 * Returns: (transfer none) (nullable): the keypoint tracks meta of @buffer, %NULL when it has
 *   none.
 *
 * Deprecated: Use gst_buffer_get_keypoints_tracks_meta().
 */
G_DEPRECATED_FOR(gst_buffer_get_keypoints_tracks_meta)
GstKeypointsTracksMeta* gst_buffer_get_keypoint_tracks_meta(GstBuffer* buffer);

/**
 * gst_keypoint_tracks_meta_get_tracks_buffer: (skip)
 * @meta: a #GstKeypointsTracksMeta
 *
 * As gst_keypoints_tracks_meta_get_tracks_buffer().
 *
 * Returns: (transfer full): a read-only buffer whose memory is the meta's track array.
 *
 * Deprecated: Use gst_keypoints_tracks_meta_get_tracks_buffer().
 */
G_DEPRECATED_FOR(gst_keypoints_tracks_meta_get_tracks_buffer)
GstBuffer* gst_keypoint_tracks_meta_get_tracks_buffer(const GstKeypointsTracksMeta* meta);

G_END_DECLS
