/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Checks of a buffer's layout against its caps before an element reads its pixels: a buffer or a
 * GstVideoMeta from upstream may claim any size, stride or offset. */
#pragma once

#include <gst/video/video.h>

#include <cstddef>
#include <string>

namespace gpusift::gst {

/* Empty when `buffer` can be mapped as a frame of `info`: without a video meta it holds at least
 * the caps' size; a video meta has the caps' format and planes and at least their size.
 * Otherwise why not, in words. */
std::string buffer_layout_problem(GstBuffer* buffer, const GstVideoInfo& info);

/* Empty when `rows` rows of `row_bytes` bytes, `stride` bytes apart, lie inside the memory
 * mapped for plane `plane` of the mapped `frame`; otherwise why not. */
std::string plane_rows_problem(const GstVideoFrame& frame, guint plane, gint64 stride,
                               size_t row_bytes, int rows);

}  // namespace gpusift::gst
