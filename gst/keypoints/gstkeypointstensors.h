/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A GstKeypointsMeta's keypoints and descriptors as tensors of GStreamer's analytics library
 * (GstTensorMeta, GStreamer 1.26 and newer), for tensor consumers that do not know this library.
 * gpusiftfilter adds them to every frame while its analytics property is set. This header, and
 * the function below, exist only in builds against GStreamer 1.26 and newer with the analytics
 * library. */
#pragma once

#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>

G_BEGIN_DECLS

/**
 * GST_KEYPOINTS_TENSOR_KEYPOINTS:
 *
 * The id (as a quark's string) of the keypoints tensor: float32, N x 7, row-major, the fields of
 * #GstKeypoint in order (x, y, size, angle, response, octave, class_id; the two integers as
 * floats, exact in the range they take).
 *
 * Since: 0.2
 */
#define GST_KEYPOINTS_TENSOR_KEYPOINTS "gpusift-keypoints"

/**
 * GST_KEYPOINTS_TENSOR_DESCRIPTORS:
 *
 * The id of the descriptors tensor: N x descriptor_size, row-major, float32 or uint8 as the
 * meta's descriptor type, sharing the meta's memory.
 *
 * Since: 0.2
 */
#define GST_KEYPOINTS_TENSOR_DESCRIPTORS "gpusift-descriptors"

/**
 * gst_buffer_add_keypoints_tensors:
 * @buffer: a writable #GstBuffer
 * @meta: a #GstKeypointsMeta of @buffer
 *
 * Adds @meta's keypoints (%GST_KEYPOINTS_TENSOR_KEYPOINTS) and, when it has descriptors, its
 * descriptors (%GST_KEYPOINTS_TENSOR_DESCRIPTORS) to @buffer's #GstTensorMeta, made when it has
 * none; tensors already there stay, after a copy (gst_tensor_meta_set() replaces the array).
 *
 * Returns: TRUE when added; FALSE, with a critical, when @meta fails
 *   gst_keypoints_meta_validate().
 *
 * Since: 0.2
 */
gboolean gst_buffer_add_keypoints_tensors(GstBuffer* buffer, const GstKeypointsMeta* meta);

G_END_DECLS
