/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstkeypointstensors.h"

#include <gst/analytics/analytics.h>

/* Seven floats per keypoint: the fields of GstKeypoint in order. */
#define KEYPOINT_TENSOR_COLUMNS 7

static GstTensor* keypoints_tensor(const GstKeypointsMeta* meta) {
  const gsize n = meta->n_keypoints;
  gsize dims[2] = {n, KEYPOINT_TENSOR_COLUMNS};
  GstBuffer* data =
      gst_buffer_new_allocate(NULL, n * KEYPOINT_TENSOR_COLUMNS * sizeof(gfloat), NULL);
  GstMapInfo map;
  gsize i;

  if (data == NULL || !gst_buffer_map(data, &map, GST_MAP_WRITE)) {
    gst_clear_buffer(&data);
    return NULL;
  }
  for (i = 0; i < n; i++) {
    const GstKeypoint* k = &meta->keypoints[i];
    gfloat* row = (gfloat*)map.data + i * KEYPOINT_TENSOR_COLUMNS;
    row[0] = k->x;
    row[1] = k->y;
    row[2] = k->size;
    row[3] = k->angle;
    row[4] = k->response;
    /* Exact: OpenCV's packed octave stays below 2^24, and class ids are small. */
    row[5] = (gfloat)k->octave;
    row[6] = (gfloat)k->class_id;
  }
  gst_buffer_unmap(data, &map);
  return gst_tensor_new_simple(g_quark_from_static_string(GST_KEYPOINTS_TENSOR_KEYPOINTS),
                               GST_TENSOR_DATA_TYPE_FLOAT32, data, GST_TENSOR_DIM_ORDER_ROW_MAJOR,
                               2, dims);
}

/* The descriptor rows, no copy: the tensor's buffer holds the meta's own storage. */
static GstTensor* descriptors_tensor(const GstKeypointsMeta* meta) {
  gsize dims[2] = {meta->n_keypoints, meta->descriptor_size};
  GstBuffer* data = gst_keypoints_meta_get_descriptors_buffer(meta);

  if (data == NULL) {
    return NULL;
  }
  return gst_tensor_new_simple(g_quark_from_static_string(GST_KEYPOINTS_TENSOR_DESCRIPTORS),
                               meta->descriptor_type == GST_KEYPOINTS_DESCRIPTOR_UINT8
                                   ? GST_TENSOR_DATA_TYPE_UINT8
                                   : GST_TENSOR_DATA_TYPE_FLOAT32,
                               data, GST_TENSOR_DIM_ORDER_ROW_MAJOR, 2, dims);
}

gboolean gst_buffer_add_keypoints_tensors(GstBuffer* buffer, const GstKeypointsMeta* meta) {
  GError* error = NULL;
  GstTensorMeta* tensor_meta;
  GstTensor* ours[2] = {NULL, NULL};
  GstTensor** tensors;
  guint n_ours = 0;
  gsize i, kept;

  g_return_val_if_fail(GST_IS_BUFFER(buffer) && gst_buffer_is_writable(buffer), FALSE);
  g_return_val_if_fail(meta != NULL, FALSE);
  if (!gst_keypoints_meta_validate(meta, &error)) {
    g_critical("gst_buffer_add_keypoints_tensors: inconsistent %s", error->message);
    g_error_free(error);
    return FALSE;
  }
  ours[n_ours] = keypoints_tensor(meta);
  if (ours[n_ours] != NULL) {
    n_ours++;
  }
  if (meta->descriptor_type != GST_KEYPOINTS_DESCRIPTOR_NONE) {
    ours[n_ours] = descriptors_tensor(meta);
    if (ours[n_ours] != NULL) {
      n_ours++;
    }
  }
  tensor_meta = gst_buffer_get_tensor_meta(buffer);
  if (tensor_meta == NULL) {
    tensor_meta = gst_buffer_add_tensor_meta(buffer);
  }
  kept = tensor_meta->num_tensors;
  tensors = g_new(GstTensor*, kept + n_ours);
  for (i = 0; i < kept; i++) {
    tensors[i] = gst_tensor_copy(tensor_meta->tensors[i]);
  }
  for (i = 0; i < n_ours; i++) {
    tensors[kept + i] = ours[i];
  }
  gst_tensor_meta_set(tensor_meta, (guint)(kept + n_ours), tensors);
  return TRUE;
}
