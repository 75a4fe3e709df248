/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstKeypointsDeviceMeta: the descriptor rows of a buffer's GstKeypointsMeta, also in device
 * memory. gpusiftfilter attaches it when a keypointtracker on the same GPU asks for it (an
 * upstream request event), so that descriptors go from extractor to matcher without a trip
 * through the host. Private to the gpusift plugin; knows nothing of CUDA itself: the memory is a
 * GstBuffer of GstCudaMemory, the context a GstCudaContext. */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct {
  GstMeta meta;

  GstBuffer* memory;  /* n_rows * row_bytes contiguous bytes from the start of its device memory */
  GstObject* context; /* the GstCudaContext that memory belongs to */
  guint n_rows;
  guint row_bytes;
} GstKeypointsDeviceMeta;

GType gst_keypoints_device_meta_api_get_type(void);
const GstMetaInfo* gst_keypoints_device_meta_get_info(void);

/* Takes a reference to memory and to context. */
GstKeypointsDeviceMeta* gst_buffer_add_keypoints_device_meta(GstBuffer* buffer, GstBuffer* memory,
                                                             GstObject* context, guint n_rows,
                                                             guint row_bytes);

#define gst_buffer_get_keypoints_device_meta(b) \
  ((GstKeypointsDeviceMeta*)gst_buffer_get_meta((b), gst_keypoints_device_meta_api_get_type()))

/* The request a tracker sends upstream: "attach GstKeypointsDeviceMeta from now on". */
GstEvent* gst_keypoints_device_request_new(void);
gboolean gst_keypoints_device_request_is(GstEvent* event);

G_END_DECLS
