/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstkeypointsdevicemeta.h"

#include "gstkeypoints-private.h"

#include <gst/video/video.h>

#define DEVICE_REQUEST_NAME "gpusift-device-descriptors-request"

GType gst_keypoints_device_meta_api_get_type(void) {
  static gsize type = 0;
  return gst_keypoints_meta_api_type_once(&type, "GstKeypointsDeviceMetaAPI");
}

static void device_meta_free(GstMeta* meta, GstBuffer* buffer) {
  GstKeypointsDeviceMeta* dmeta = (GstKeypointsDeviceMeta*)meta;
  (void)buffer;
  gst_clear_buffer(&dmeta->memory);
  gst_clear_object(&dmeta->context);
}

/* Descriptors do not depend on where the frame is or how large: copies and scaled copies share
 * the same device rows. */
static gboolean device_meta_transform(GstBuffer* dest, GstMeta* meta, GstBuffer* buffer,
                                      GQuark type, gpointer data) {
  const GstKeypointsDeviceMeta* src = (const GstKeypointsDeviceMeta*)meta;
  (void)buffer;
  (void)data;
  if (!GST_META_TRANSFORM_IS_COPY(type) && !GST_VIDEO_META_TRANSFORM_IS_SCALE(type)) {
    return FALSE;
  }
  return gst_buffer_add_keypoints_device_meta(dest, src->memory, src->context, src->n_rows,
                                              src->row_bytes) != NULL;
}

const GstMetaInfo* gst_keypoints_device_meta_get_info(void) {
  static const GstMetaInfo* info = NULL;
  return gst_keypoints_meta_info_once(&info, gst_keypoints_device_meta_api_get_type(),
                                      "GstKeypointsDeviceMeta", sizeof(GstKeypointsDeviceMeta),
                                      gst_keypoints_meta_zero_init, device_meta_free,
                                      device_meta_transform);
}

GstKeypointsDeviceMeta* gst_buffer_add_keypoints_device_meta(GstBuffer* buffer, GstBuffer* memory,
                                                             GstObject* context, guint n_rows,
                                                             guint row_bytes) {
  GstKeypointsDeviceMeta* meta;
  gsize bytes;

  g_return_val_if_fail(GST_IS_BUFFER(buffer), NULL);
  g_return_val_if_fail(GST_IS_BUFFER(memory), NULL);
  g_return_val_if_fail(GST_IS_OBJECT(context), NULL);
  g_return_val_if_fail(row_bytes > 0, NULL);
  g_return_val_if_fail(g_size_checked_mul(&bytes, n_rows, row_bytes), NULL);
  g_return_val_if_fail(gst_buffer_get_size(memory) >= bytes, NULL);

  meta = (GstKeypointsDeviceMeta*)gst_buffer_add_meta(buffer, gst_keypoints_device_meta_get_info(),
                                                      NULL);
  if (meta == NULL) {
    return NULL;
  }
  meta->memory = gst_buffer_ref(memory);
  meta->context = gst_object_ref(context);
  meta->n_rows = n_rows;
  meta->row_bytes = row_bytes;
  return meta;
}

GstEvent* gst_keypoints_device_request_new(void) {
  return gst_event_new_custom(GST_EVENT_CUSTOM_UPSTREAM,
                              gst_structure_new_empty(DEVICE_REQUEST_NAME));
}

gboolean gst_keypoints_device_request_is(GstEvent* event) {
  return GST_EVENT_TYPE(event) == GST_EVENT_CUSTOM_UPSTREAM &&
         gst_event_has_name(event, DEVICE_REQUEST_NAME);
}
