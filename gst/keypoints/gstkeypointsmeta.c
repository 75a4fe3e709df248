/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstkeypointsmeta.h"

#include "gstkeypoints-private.h"

#include <math.h>
#include <stdarg.h>

G_DEFINE_QUARK(gst - keypoints - meta - error - quark, gst_keypoints_meta_error)

gboolean gst_keypoints_meta_set_inconsistent(GError** error, const gchar* format, ...) {
  va_list args;
  gchar* message;
  va_start(args, format);
  message = g_strdup_vprintf(format, args);
  va_end(args);
  g_set_error_literal(error, GST_KEYPOINTS_META_ERROR, GST_KEYPOINTS_META_ERROR_INCONSISTENT,
                      message);
  g_free(message);
  return FALSE;
}

void gst_keypoints_meta_critical_inconsistent(const gchar* where, GError* error) {
  g_critical("%s: inconsistent %s", where, error->message);
  g_error_free(error);
}

GType gst_keypoints_meta_api_get_type(void) {
  static gsize type = 0;
  return gst_keypoints_meta_api_type_once(&type, "GstKeypointsMetaAPI");
}

gsize gst_keypoints_descriptor_type_element_size(GstKeypointsDescriptorType type) {
  switch (type) {
    case GST_KEYPOINTS_DESCRIPTOR_FLOAT32:
      return sizeof(gfloat);
    case GST_KEYPOINTS_DESCRIPTOR_UINT8:
      return sizeof(guint8);
    case GST_KEYPOINTS_DESCRIPTOR_NONE:
    default:
      return 0;
  }
}

const gchar* gst_keypoints_method_to_string(GstKeypointsMethod method) {
  switch (method) {
    case GST_KEYPOINTS_METHOD_SIFT:
      return "sift";
    case GST_KEYPOINTS_METHOD_SURF:
      return "surf";
    default:
      return "unknown";
  }
}

static gboolean method_is_valid(GstKeypointsMethod method) {
  return method == GST_KEYPOINTS_METHOD_SIFT || method == GST_KEYPOINTS_METHOD_SURF;
}

static gboolean descriptor_type_is_valid(GstKeypointsDescriptorType type) {
  return type == GST_KEYPOINTS_DESCRIPTOR_NONE || type == GST_KEYPOINTS_DESCRIPTOR_FLOAT32 ||
         type == GST_KEYPOINTS_DESCRIPTOR_UINT8;
}

/* Byte size of n_keypoints keypoints; FALSE past the maximum or on overflow. */
static gboolean keypoint_bytes_size(gsize n_keypoints, gsize* size) {
  return n_keypoints <= GST_KEYPOINTS_MAX_KEYPOINTS &&
         g_size_checked_mul(size, n_keypoints, sizeof(GstKeypoint));
}

/* Byte size of n_keypoints descriptor rows; FALSE past the maximum row or on overflow. */
static gboolean descriptor_bytes_size(guint n_keypoints, GstKeypointsDescriptorType type,
                                      guint descriptor_size, gsize* size) {
  gsize row;
  return descriptor_size <= GST_KEYPOINTS_MAX_DESCRIPTOR_SIZE &&
         g_size_checked_mul(&row, descriptor_size,
                            gst_keypoints_descriptor_type_element_size(type)) &&
         g_size_checked_mul(size, row, n_keypoints);
}

static void gst_keypoints_meta_free(GstMeta* meta, GstBuffer* buffer) {
  GstKeypointsMeta* kmeta = (GstKeypointsMeta*)meta;
  (void)buffer;
  g_clear_pointer(&kmeta->keypoint_bytes, g_bytes_unref);
  g_clear_pointer(&kmeta->descriptor_bytes, g_bytes_unref);
}

/* Adds a meta owning the given references (descriptor_bytes may be NULL). Arguments are valid. */
static GstKeypointsMeta* add_meta_take(GstBuffer* buffer, GstKeypointsMethod method, guint width,
                                       guint height, GBytes* keypoint_bytes,
                                       GstKeypointsDescriptorType descriptor_type,
                                       guint descriptor_size, GBytes* descriptor_bytes) {
  GstKeypointsMeta* meta =
      (GstKeypointsMeta*)gst_buffer_add_meta(buffer, GST_KEYPOINTS_META_INFO, NULL);
  if (meta == NULL) {
    g_bytes_unref(keypoint_bytes);
    g_clear_pointer(&descriptor_bytes, g_bytes_unref);
    return NULL;
  }
  meta->method = method;
  meta->width = width;
  meta->height = height;
  meta->keypoint_bytes = keypoint_bytes;
  meta->keypoints = g_bytes_get_data(keypoint_bytes, NULL);
  meta->n_keypoints = (guint)(g_bytes_get_size(keypoint_bytes) / sizeof(GstKeypoint));
  meta->descriptor_type = descriptor_type;
  meta->descriptor_size = descriptor_size;
  meta->descriptor_bytes = descriptor_bytes;
  meta->descriptors = descriptor_bytes ? g_bytes_get_data(descriptor_bytes, NULL) : NULL;
  return meta;
}

GstKeypointsMeta* gst_buffer_add_keypoints_meta(GstBuffer* buffer, GstKeypointsMethod method,
                                                guint width, guint height,
                                                const GstKeypoint* keypoints, guint n_keypoints,
                                                GstKeypointsDescriptorType descriptor_type,
                                                guint descriptor_size, gconstpointer descriptors) {
  gsize keypoints_size = 0;
  gsize descriptors_size = 0;
  GBytes* descriptor_bytes = NULL;

  g_return_val_if_fail(GST_IS_BUFFER(buffer), NULL);
  g_return_val_if_fail(gst_buffer_is_writable(buffer), NULL);
  g_return_val_if_fail(method_is_valid(method), NULL);
  g_return_val_if_fail(width > 0 && height > 0, NULL);
  g_return_val_if_fail(keypoint_bytes_size(n_keypoints, &keypoints_size), NULL);
  g_return_val_if_fail(n_keypoints == 0 || keypoints != NULL, NULL);
  g_return_val_if_fail(descriptor_type_is_valid(descriptor_type), NULL);
  g_return_val_if_fail((descriptor_type == GST_KEYPOINTS_DESCRIPTOR_NONE) == (descriptor_size == 0),
                       NULL);
  g_return_val_if_fail(descriptor_type != GST_KEYPOINTS_DESCRIPTOR_NONE || descriptors == NULL,
                       NULL);
  g_return_val_if_fail(
      descriptor_bytes_size(n_keypoints, descriptor_type, descriptor_size, &descriptors_size),
      NULL);
  g_return_val_if_fail(descriptors_size == 0 || descriptors != NULL, NULL);

  if (descriptor_type != GST_KEYPOINTS_DESCRIPTOR_NONE) {
    descriptor_bytes = g_bytes_new(descriptors, descriptors_size);
  }
  return add_meta_take(buffer, method, width, height, g_bytes_new(keypoints, keypoints_size),
                       descriptor_type, descriptor_size, descriptor_bytes);
}

GstKeypointsMeta* gst_buffer_add_keypoints_meta_from_bytes(
    GstBuffer* buffer, GstKeypointsMethod method, guint width, guint height, GBytes* keypoints,
    GstKeypointsDescriptorType descriptor_type, guint descriptor_size, GBytes* descriptors) {
  gsize keypoints_size;
  gsize descriptors_size = 0;
  guint n_keypoints;

  g_return_val_if_fail(GST_IS_BUFFER(buffer), NULL);
  g_return_val_if_fail(gst_buffer_is_writable(buffer), NULL);
  g_return_val_if_fail(method_is_valid(method), NULL);
  g_return_val_if_fail(width > 0 && height > 0, NULL);
  g_return_val_if_fail(keypoints != NULL, NULL);
  keypoints_size = g_bytes_get_size(keypoints);
  g_return_val_if_fail(keypoints_size % sizeof(GstKeypoint) == 0, NULL);
  g_return_val_if_fail(keypoints_size / sizeof(GstKeypoint) <= GST_KEYPOINTS_MAX_KEYPOINTS, NULL);
  n_keypoints = (guint)(keypoints_size / sizeof(GstKeypoint));
  g_return_val_if_fail(descriptor_type_is_valid(descriptor_type), NULL);
  g_return_val_if_fail((descriptor_type == GST_KEYPOINTS_DESCRIPTOR_NONE) == (descriptor_size == 0),
                       NULL);
  g_return_val_if_fail(descriptor_type != GST_KEYPOINTS_DESCRIPTOR_NONE || descriptors == NULL,
                       NULL);
  g_return_val_if_fail(
      descriptor_bytes_size(n_keypoints, descriptor_type, descriptor_size, &descriptors_size),
      NULL);
  g_return_val_if_fail(descriptors == NULL ? descriptors_size == 0
                                           : g_bytes_get_size(descriptors) == descriptors_size,
                       NULL);

  if (descriptor_type != GST_KEYPOINTS_DESCRIPTOR_NONE) {
    /* Zero keypoints may come without descriptor bytes; the meta always has them then. */
    descriptors = descriptors ? g_bytes_ref(descriptors) : g_bytes_new(NULL, 0);
  }
  return add_meta_take(buffer, method, width, height, g_bytes_ref(keypoints), descriptor_type,
                       descriptor_size, descriptors);
}

GstKeypointsMeta* gst_buffer_get_keypoints_meta(GstBuffer* buffer) {
  g_return_val_if_fail(GST_IS_BUFFER(buffer), NULL);
  return (GstKeypointsMeta*)gst_buffer_get_meta(buffer, GST_KEYPOINTS_META_API_TYPE);
}

static const gchar* descriptor_type_name(GstKeypointsDescriptorType type) {
  switch (type) {
    case GST_KEYPOINTS_DESCRIPTOR_NONE:
      return "none";
    case GST_KEYPOINTS_DESCRIPTOR_FLOAT32:
      return "float32";
    case GST_KEYPOINTS_DESCRIPTOR_UINT8:
      return "uint8";
    default:
      return "unknown";
  }
}

/* The descriptor half of gst_keypoints_meta_validate(): type, row size and the array. */
static gboolean descriptors_are_consistent(const GstKeypointsMeta* meta, GError** error) {
  const GstKeypointsDescriptorType type = meta->descriptor_type;
  const gboolean none = type == GST_KEYPOINTS_DESCRIPTOR_NONE;
  gsize needed;
  gsize held;

  if (!descriptor_type_is_valid(type))
    return gst_keypoints_meta_set_inconsistent(
        error, "GstKeypointsMeta: descriptor_type %d is not none (0), float32 (1) or uint8 (2)",
        (gint)type);
  if (none != (meta->descriptor_size == 0))
    return gst_keypoints_meta_set_inconsistent(
        error, "GstKeypointsMeta: descriptor_size %u with descriptor_type %s",
        meta->descriptor_size, descriptor_type_name(type));
  if (none != (meta->descriptor_bytes == NULL))
    return gst_keypoints_meta_set_inconsistent(
        error, "GstKeypointsMeta: descriptor_type %s but the meta %s a descriptor array",
        descriptor_type_name(type), none ? "has" : "has no");
  if (none)
    return meta->descriptors == NULL ||
           gst_keypoints_meta_set_inconsistent(
               error, "GstKeypointsMeta: descriptors is set without descriptors");
  held = g_bytes_get_size(meta->descriptor_bytes);
  if (!descriptor_bytes_size(meta->n_keypoints, type, meta->descriptor_size, &needed) ||
      needed != held)
    return gst_keypoints_meta_set_inconsistent(
        error,
        "GstKeypointsMeta: %u rows of %u %s values do not fit the descriptor array of "
        "%" G_GSIZE_FORMAT " bytes",
        meta->n_keypoints, meta->descriptor_size, descriptor_type_name(type), held);
  if (meta->descriptors != g_bytes_get_data(meta->descriptor_bytes, NULL))
    return gst_keypoints_meta_set_inconsistent(
        error, "GstKeypointsMeta: descriptors does not point at the meta's descriptor array");
  return TRUE;
}

gboolean gst_keypoints_meta_validate(const GstKeypointsMeta* meta, GError** error) {
  gsize needed;
  gsize held;

  g_return_val_if_fail(meta != NULL, FALSE);
  g_return_val_if_fail(error == NULL || *error == NULL, FALSE);
  if (meta->meta.info == NULL || meta->meta.info->api != GST_KEYPOINTS_META_API_TYPE ||
      meta->keypoint_bytes == NULL)
    return gst_keypoints_meta_set_inconsistent(
        error, "GstKeypointsMeta: not made by gst_buffer_add_keypoints_meta()");
  if (!method_is_valid(meta->method))
    return gst_keypoints_meta_set_inconsistent(
        error, "GstKeypointsMeta: method %d is neither sift (0) nor surf (1)", (gint)meta->method);
  if (meta->width == 0 || meta->height == 0)
    return gst_keypoints_meta_set_inconsistent(error, "GstKeypointsMeta: frame size %ux%u is empty",
                                               meta->width, meta->height);
  held = g_bytes_get_size(meta->keypoint_bytes);
  if (!keypoint_bytes_size(meta->n_keypoints, &needed) || needed != held)
    return gst_keypoints_meta_set_inconsistent(
        error, "GstKeypointsMeta: n_keypoints is %u but the keypoint array holds %" G_GSIZE_FORMAT,
        meta->n_keypoints, held / sizeof(GstKeypoint));
  if ((gconstpointer)meta->keypoints != g_bytes_get_data(meta->keypoint_bytes, NULL))
    return gst_keypoints_meta_set_inconsistent(
        error, "GstKeypointsMeta: keypoints does not point at the meta's keypoint array");
  return descriptors_are_consistent(meta, error);
}

/* The meta when it passes gst_keypoints_meta_validate(); NULL with a critical naming `where`
 * otherwise. */
static const GstKeypointsMeta* consistent_or_critical(const GstKeypointsMeta* meta,
                                                      const gchar* where) {
  GError* error = NULL;
  if (gst_keypoints_meta_validate(meta, &error))
    return meta;
  gst_keypoints_meta_critical_inconsistent(where, error);
  return NULL;
}

GBytes* gst_keypoints_meta_get_keypoints_bytes(const GstKeypointsMeta* meta) {
  g_return_val_if_fail(meta != NULL, NULL);
  if (consistent_or_critical(meta, G_STRFUNC) == NULL)
    return NULL;
  return g_bytes_ref(meta->keypoint_bytes);
}

GBytes* gst_keypoints_meta_get_descriptors_bytes(const GstKeypointsMeta* meta) {
  g_return_val_if_fail(meta != NULL, NULL);
  if (consistent_or_critical(meta, G_STRFUNC) == NULL)
    return NULL;
  return meta->descriptor_bytes ? g_bytes_ref(meta->descriptor_bytes) : NULL;
}

/* A read-only buffer over the bytes, sharing them (it takes the reference; NULL stays NULL);
 * without memory when they are empty, because wrapped memory needs a data pointer and empty
 * GBytes may have none. */
static GstBuffer* buffer_taking(GBytes* bytes) {
  GstBuffer* buffer = NULL;
  if (bytes == NULL)
    return NULL;
  buffer = g_bytes_get_size(bytes) == 0 ? gst_buffer_new() : gst_buffer_new_wrapped_bytes(bytes);
  g_bytes_unref(bytes);
  return buffer;
}

GstBuffer* gst_keypoints_meta_get_keypoints_buffer(const GstKeypointsMeta* meta) {
  return buffer_taking(gst_keypoints_meta_get_keypoints_bytes(meta));
}

GstBuffer* gst_keypoints_meta_get_descriptors_buffer(const GstKeypointsMeta* meta) {
  return buffer_taking(gst_keypoints_meta_get_descriptors_bytes(meta));
}

/* Keypoints of src mapped into a width x height coordinate space covering the same image. */
static GBytes* scale_keypoints(const GstKeypointsMeta* src, guint width, guint height) {
  const gdouble sx = (gdouble)width / src->width;
  const gdouble sy = (gdouble)height / src->height;
  const gdouble size_scale = (sx + sy) / 2.0;
  GstKeypoint* scaled = g_new(GstKeypoint, src->n_keypoints);
  guint i;

  for (i = 0; i < src->n_keypoints; i++) {
    GstKeypoint kp = src->keypoints[i];
    kp.x = (gfloat)(kp.x * sx);
    kp.y = (gfloat)(kp.y * sy);
    kp.size = (gfloat)(kp.size * size_scale);
    /* A non-uniform scale turns the orientation; -1 is OpenCV's "no orientation". */
    if (sx != sy && kp.angle != -1.0f && isfinite(kp.angle)) {
      const gdouble radians = kp.angle * G_PI / 180.0;
      gdouble degrees = atan2(sin(radians) * sy, cos(radians) * sx) * 180.0 / G_PI;
      if (degrees < 0.0) {
        degrees += 360.0;
      }
      kp.angle = (gfloat)degrees;
    }
    scaled[i] = kp;
  }
  return g_bytes_new_take(scaled, (gsize)src->n_keypoints * sizeof(GstKeypoint));
}

static GstKeypointsMeta* add_meta_sharing(GstBuffer* dest, const GstKeypointsMeta* src, guint width,
                                          guint height, GBytes* keypoint_bytes) {
  return add_meta_take(dest, src->method, width, height, keypoint_bytes, src->descriptor_type,
                       src->descriptor_size,
                       src->descriptor_bytes ? g_bytes_ref(src->descriptor_bytes) : NULL);
}

static gboolean gst_keypoints_meta_transform(GstBuffer* dest, GstMeta* meta, GstBuffer* buffer,
                                             GQuark type, gpointer data) {
  const GstKeypointsMeta* src = (const GstKeypointsMeta*)meta;
  (void)buffer;

  /* A meta whose fields were changed is not carried on: the copy would take the real arrays'
   * sizes and hide the change, and scaling would read past them. */
  if ((GST_META_TRANSFORM_IS_COPY(type) || GST_VIDEO_META_TRANSFORM_IS_SCALE(type)) &&
      consistent_or_critical(src, "GstKeypointsMeta transform (dropped)") == NULL) {
    return FALSE;
  }
  if (GST_META_TRANSFORM_IS_COPY(type)) {
    /* Region copies too: a buffer region is still the whole frame for video. */
    return add_meta_sharing(dest, src, src->width, src->height, g_bytes_ref(src->keypoint_bytes)) !=
           NULL;
  }
  if (GST_VIDEO_META_TRANSFORM_IS_SCALE(type)) {
    const GstVideoMetaTransform* scale = data;
    const gint width = GST_VIDEO_INFO_WIDTH(scale->out_info);
    const gint height = GST_VIDEO_INFO_HEIGHT(scale->out_info);
    GBytes* keypoint_bytes;

    if (width <= 0 || height <= 0) {
      return FALSE;
    }
    /* The meta's space covers the whole input frame, so it maps straight onto the output. */
    if ((guint)width == src->width && (guint)height == src->height) {
      keypoint_bytes = g_bytes_ref(src->keypoint_bytes);
    } else {
      keypoint_bytes = scale_keypoints(src, (guint)width, (guint)height);
    }
    return add_meta_sharing(dest, src, (guint)width, (guint)height, keypoint_bytes) != NULL;
  }
  return FALSE;
}

const GstMetaInfo* gst_keypoints_meta_get_info(void) {
  static const GstMetaInfo* info = NULL;
  return gst_keypoints_meta_info_once(&info, GST_KEYPOINTS_META_API_TYPE, "GstKeypointsMeta",
                                      sizeof(GstKeypointsMeta), gst_keypoints_meta_zero_init,
                                      gst_keypoints_meta_free, gst_keypoints_meta_transform);
}
