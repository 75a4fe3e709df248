/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstKeypointsMeta: image features (keypoints and descriptors) attached to a video buffer.
 *
 * Keypoints follow OpenCV's cv::KeyPoint conventions (size is a diameter, angle in degrees,
 * OpenCV's octave packing, pixel centres at integer coordinates), in the coordinate space of
 * width x height. The keypoint and descriptor arrays are immutable and shared between copies
 * of the meta (reference counted), so copying a buffer never copies the features.
 *
 * Bindings (GObject introspection, namespace GstKeypoints-1.0): the raw pointers of the struct
 * mean nothing to a binding, so the arrays are also handed out as objects that own a reference to
 * the meta's storage: gst_keypoints_meta_get_keypoints_buffer() and
 * gst_keypoints_meta_get_descriptors_buffer() return read-only GstBuffers that wrap the arrays
 * without copying them. Buffers, because language bindings map a GstBuffer's memory in place (in
 * Python Gst.Buffer.map() gives a memoryview that numpy views without a copy), whereas GBytes
 * reach most of them as a copy; the GBytes themselves are available too
 * (gst_keypoints_meta_get_keypoints_bytes() and gst_keypoints_meta_get_descriptors_bytes()). What
 * these return stays valid after the buffer that carried the meta is gone. tools/programs/python/
 * gst_keypoints.py turns them into numpy arrays.
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/**
 * GstKeypointsMethod:
 * @GST_KEYPOINTS_METHOD_SIFT: SIFT keypoints and descriptors
 * @GST_KEYPOINTS_METHOD_SURF: SURF keypoints and descriptors
 *
 * The feature method that produced the keypoints.
 */
typedef enum {
  GST_KEYPOINTS_METHOD_SIFT = 0,
  GST_KEYPOINTS_METHOD_SURF = 1,
} GstKeypointsMethod;

/**
 * GstKeypointsDescriptorType:
 * @GST_KEYPOINTS_DESCRIPTOR_NONE: no descriptors
 * @GST_KEYPOINTS_DESCRIPTOR_FLOAT32: descriptor values are 32-bit floats
 * @GST_KEYPOINTS_DESCRIPTOR_UINT8: descriptor values are bytes
 *
 * The type of one descriptor value.
 */
typedef enum {
  GST_KEYPOINTS_DESCRIPTOR_NONE = 0,
  GST_KEYPOINTS_DESCRIPTOR_FLOAT32 = 1,
  GST_KEYPOINTS_DESCRIPTOR_UINT8 = 2,
} GstKeypointsDescriptorType;

/**
 * GstKeypoint:
 * @x: column of the centre
 * @y: row of the centre
 * @size: diameter of the meaningful neighbourhood
 * @angle: orientation in degrees, -1 when not computed
 * @response: strength of the keypoint
 * @octave: OpenCV's packing of octave, layer and sub-layer offset
 * @class_id: SURF: sign of the Laplacian (+1/-1); SIFT: -1
 *
 * One keypoint, laid out as 5 floats then 2 32-bit integers (28 bytes, no padding).
 */
typedef struct {
  gfloat x;
  gfloat y;
  gfloat size;
  gfloat angle;
  gfloat response;
  gint32 octave;
  gint32 class_id;
} GstKeypoint;

/**
 * GST_KEYPOINTS_MAX_KEYPOINTS:
 *
 * The most keypoints one meta carries, 16777216 (gpusiftfilter keeps at most 4194304). A count
 * past it, or a byte size past what gsize holds, is refused before anything is allocated.
 */
#define GST_KEYPOINTS_MAX_KEYPOINTS 16777216

/**
 * GST_KEYPOINTS_MAX_DESCRIPTOR_SIZE:
 *
 * The most values in one descriptor row, 4096 (SIFT has 128, SURF 64 or 128).
 */
#define GST_KEYPOINTS_MAX_DESCRIPTOR_SIZE 4096

/**
 * GstKeypointsMeta:
 * @meta: the parent #GstMeta
 * @method: the method that produced the features
 * @width: width of the coordinate space of the keypoints
 * @height: height of the coordinate space of the keypoints
 * @n_keypoints: number of keypoints
 * @keypoints: (type gpointer): the keypoints; bindings use
 *   gst_keypoints_meta_get_keypoints_buffer()
 * @descriptor_type: the type of a descriptor value
 * @descriptor_size: values per descriptor row, 0 without descriptors
 * @descriptors: n_keypoints rows of descriptor_size values, %NULL without descriptors; bindings
 *   use gst_keypoints_meta_get_descriptors_buffer()
 *
 * Keypoints and descriptors of one video frame.
 *
 * The public fields describe the meta's private arrays, which the add functions set together.
 * Treat them as read-only: the introspection data marks them so (bindings cannot write them),
 * and every reader in this library and in the gpusift elements checks them against the arrays
 * with gst_keypoints_meta_validate() before it reads, refusing a meta whose fields were changed.
 */
typedef struct {
  GstMeta meta;

  GstKeypointsMethod method;
  guint width;
  guint height;
  guint n_keypoints;
  const GstKeypoint* keypoints;
  GstKeypointsDescriptorType descriptor_type;
  guint descriptor_size;
  gconstpointer descriptors;

  /*< private >*/
  GBytes* keypoint_bytes;
  GBytes* descriptor_bytes;
} GstKeypointsMeta;

/**
 * gst_keypoints_meta_api_get_type:
 *
 * Returns: the #GType of the keypoints meta API.
 */
GType gst_keypoints_meta_api_get_type(void);
#define GST_KEYPOINTS_META_API_TYPE (gst_keypoints_meta_api_get_type())

/**
 * gst_keypoints_meta_get_info:
 *
 * Returns: (transfer none): the #GstMetaInfo of #GstKeypointsMeta.
 */
const GstMetaInfo* gst_keypoints_meta_get_info(void);
#define GST_KEYPOINTS_META_INFO (gst_keypoints_meta_get_info())

/**
 * gst_buffer_add_keypoints_meta: (skip)
 * @buffer: a writable #GstBuffer
 * @method: the method that produced the features
 * @width: width of the coordinate space, > 0
 * @height: height of the coordinate space, > 0
 * @keypoints: (array length=n_keypoints) (nullable): the keypoints
 * @n_keypoints: number of keypoints, at most %GST_KEYPOINTS_MAX_KEYPOINTS
 * @descriptor_type: the type of a descriptor value
 * @descriptor_size: values per row; 0 exactly when @descriptor_type is NONE, at most
 *   %GST_KEYPOINTS_MAX_DESCRIPTOR_SIZE
 * @descriptors: (nullable): n_keypoints rows of descriptor_size values, %NULL when
 *   @descriptor_type is NONE
 *
 * Adds a meta with copies of the arrays. Bindings use
 * gst_buffer_add_keypoints_meta_from_bytes().
 *
 * Returns: (transfer none) (nullable): the new meta, %NULL on invalid arguments.
 */
GstKeypointsMeta* gst_buffer_add_keypoints_meta(GstBuffer* buffer, GstKeypointsMethod method,
                                                guint width, guint height,
                                                const GstKeypoint* keypoints, guint n_keypoints,
                                                GstKeypointsDescriptorType descriptor_type,
                                                guint descriptor_size, gconstpointer descriptors);

/**
 * gst_buffer_add_keypoints_meta_from_bytes:
 * @buffer: a writable #GstBuffer
 * @method: the method that produced the features
 * @width: width of the coordinate space, > 0
 * @height: height of the coordinate space, > 0
 * @keypoints: n_keypoints * sizeof (#GstKeypoint) bytes
 * @descriptor_type: the type of a descriptor value
 * @descriptor_size: values per row; 0 exactly when @descriptor_type is NONE
 * @descriptors: (nullable): n_keypoints * descriptor_size * element size bytes, %NULL when
 *   @descriptor_type is NONE (or when there are no keypoints)
 *
 * Adds a meta that shares the given bytes: it takes a reference to each instead of copying.
 *
 * Returns: (transfer none) (nullable): the new meta, %NULL on invalid arguments.
 */
GstKeypointsMeta* gst_buffer_add_keypoints_meta_from_bytes(
    GstBuffer* buffer, GstKeypointsMethod method, guint width, guint height, GBytes* keypoints,
    GstKeypointsDescriptorType descriptor_type, guint descriptor_size, GBytes* descriptors);

/**
 * gst_buffer_get_keypoints_meta:
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the keypoints meta of @buffer, %NULL when it has none.
 *   It lives as long as @buffer keeps it.
 */
GstKeypointsMeta* gst_buffer_get_keypoints_meta(GstBuffer* buffer);

/**
 * GST_KEYPOINTS_META_ERROR:
 *
 * The error domain of gst_keypoints_meta_validate() and gst_keypoints_tracks_meta_validate().
 */
#define GST_KEYPOINTS_META_ERROR (gst_keypoints_meta_error_quark())

/**
 * GstKeypointsMetaError:
 * @GST_KEYPOINTS_META_ERROR_INCONSISTENT: the meta's public fields disagree with its arrays or
 *   with each other (a field was changed after the meta was added), or the meta was not made by
 *   this library's add functions
 *
 * Errors of the %GST_KEYPOINTS_META_ERROR domain.
 */
typedef enum {
  GST_KEYPOINTS_META_ERROR_INCONSISTENT = 0,
} GstKeypointsMetaError;

/**
 * gst_keypoints_meta_error_quark:
 *
 * Returns: the quark of %GST_KEYPOINTS_META_ERROR.
 */
GQuark gst_keypoints_meta_error_quark(void);

/**
 * gst_keypoints_meta_validate:
 * @meta: a #GstKeypointsMeta
 * @error: (nullable): where to put the cause when the meta is inconsistent
 *
 * Checks every public field against the meta's real arrays: n_keypoints times 28 bytes is the
 * keypoint array's size, n_keypoints rows of descriptor_size values of descriptor_type are the
 * descriptor array's size, the pointers are those arrays, and method, descriptor type and
 * frame size hold valid values. Call it before reading the arrays through the struct's fields
 * when the meta may have been changed by code you do not control.
 *
 * Returns: %TRUE when the fields describe the arrays; %FALSE with @error set
 *   (%GST_KEYPOINTS_META_ERROR_INCONSISTENT, naming the field) otherwise.
 */
gboolean gst_keypoints_meta_validate(const GstKeypointsMeta* meta, GError** error);

/**
 * gst_keypoints_meta_get_keypoints_bytes:
 * @meta: a #GstKeypointsMeta
 *
 * Returns: (transfer full) (nullable): the meta's keypoint storage itself, n_keypoints * 28
 *   bytes; %NULL, with a critical warning, when the meta fails gst_keypoints_meta_validate().
 */
GBytes* gst_keypoints_meta_get_keypoints_bytes(const GstKeypointsMeta* meta);

/**
 * gst_keypoints_meta_get_descriptors_bytes:
 * @meta: a #GstKeypointsMeta
 *
 * Returns: (transfer full) (nullable): the meta's descriptor storage itself, %NULL when the meta
 *   has no descriptors (descriptor_type NONE) or fails gst_keypoints_meta_validate() (with a
 *   critical warning then).
 */
GBytes* gst_keypoints_meta_get_descriptors_bytes(const GstKeypointsMeta* meta);

/**
 * gst_keypoints_meta_get_keypoints_buffer:
 * @meta: a #GstKeypointsMeta
 *
 * Returns: (transfer full) (nullable): a read-only buffer whose memory is the meta's keypoint
 *   array (no copy): n_keypoints #GstKeypoint of 28 bytes each; a buffer without memory when
 *   there are no keypoints; %NULL, with a critical warning, when the meta fails
 *   gst_keypoints_meta_validate().
 */
GstBuffer* gst_keypoints_meta_get_keypoints_buffer(const GstKeypointsMeta* meta);

/**
 * gst_keypoints_meta_get_descriptors_buffer:
 * @meta: a #GstKeypointsMeta
 *
 * Returns: (transfer full) (nullable): a read-only buffer whose memory is the meta's descriptor
 *   array (no copy): n_keypoints rows of descriptor_size values; a buffer without memory when
 *   there are no keypoints; %NULL when the meta has no descriptors (descriptor_type NONE) or
 *   fails gst_keypoints_meta_validate().
 */
GstBuffer* gst_keypoints_meta_get_descriptors_buffer(const GstKeypointsMeta* meta);

/**
 * gst_keypoints_descriptor_type_element_size:
 * @type: a #GstKeypointsDescriptorType
 *
 * Returns: bytes per descriptor value: 4, 1, or 0 for NONE.
 */
gsize gst_keypoints_descriptor_type_element_size(GstKeypointsDescriptorType type);

/**
 * gst_keypoints_method_to_string:
 * @method: a #GstKeypointsMethod
 *
 * Returns: (transfer none): "sift", "surf" or "unknown".
 */
const gchar* gst_keypoints_method_to_string(GstKeypointsMethod method);

G_END_DECLS
