/* GstKeypointsMeta: image features (keypoints and descriptors) attached to a video buffer.
 *
 * Keypoints follow OpenCV's cv::KeyPoint conventions (size is a diameter, angle in degrees,
 * OpenCV's octave packing, pixel centres at integer coordinates), in the coordinate space of
 * width x height. The keypoint and descriptor arrays are immutable and shared between copies
 * of the meta (reference counted), so copying a buffer never copies the features.
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

typedef enum {
  GST_KEYPOINTS_METHOD_SIFT = 0,
  GST_KEYPOINTS_METHOD_SURF = 1,
} GstKeypointsMethod;

typedef enum {
  GST_KEYPOINTS_DESCRIPTOR_NONE = 0,
  GST_KEYPOINTS_DESCRIPTOR_FLOAT32 = 1,
  GST_KEYPOINTS_DESCRIPTOR_UINT8 = 2,
} GstKeypointsDescriptorType;

typedef struct {
  gfloat x;
  gfloat y;
  gfloat size;
  gfloat angle;
  gfloat response;
  gint32 octave;
  gint32 class_id; /* SURF: sign of the Laplacian (+1/-1); SIFT: -1 */
} GstKeypoint;

typedef struct {
  GstMeta meta;

  GstKeypointsMethod method;
  guint width; /* coordinate space of the keypoints */
  guint height;
  guint n_keypoints;
  const GstKeypoint* keypoints;
  GstKeypointsDescriptorType descriptor_type;
  guint descriptor_size;     /* values per row, 0 without descriptors */
  gconstpointer descriptors; /* n_keypoints rows of descriptor_size values */

  /*< private >*/
  GBytes* keypoint_bytes;
  GBytes* descriptor_bytes;
} GstKeypointsMeta;

GType gst_keypoints_meta_api_get_type(void);
#define GST_KEYPOINTS_META_API_TYPE (gst_keypoints_meta_api_get_type())

const GstMetaInfo* gst_keypoints_meta_get_info(void);
#define GST_KEYPOINTS_META_INFO (gst_keypoints_meta_get_info())

/* Copies the arrays. descriptors may be NULL when descriptor_type is NONE. */
GstKeypointsMeta* gst_buffer_add_keypoints_meta(GstBuffer* buffer, GstKeypointsMethod method,
                                                guint width, guint height,
                                                const GstKeypoint* keypoints, guint n_keypoints,
                                                GstKeypointsDescriptorType descriptor_type,
                                                guint descriptor_size, gconstpointer descriptors);

/* Takes a reference to each GBytes instead of copying (descriptors may be NULL). The sizes must
 * be n_keypoints * sizeof (GstKeypoint) and n_keypoints * descriptor_size * element size. */
GstKeypointsMeta* gst_buffer_add_keypoints_meta_from_bytes(
    GstBuffer* buffer, GstKeypointsMethod method, guint width, guint height, GBytes* keypoints,
    GstKeypointsDescriptorType descriptor_type, guint descriptor_size, GBytes* descriptors);

#define gst_buffer_get_keypoints_meta(b) \
  ((GstKeypointsMeta*)gst_buffer_get_meta((b), GST_KEYPOINTS_META_API_TYPE))

/* Bytes per descriptor value: 4, 1, or 0 for NONE. */
gsize gst_keypoints_descriptor_type_element_size(GstKeypointsDescriptorType type);

const gchar* gst_keypoints_method_to_string(GstKeypointsMethod method);

G_END_DECLS
