// SPDX-License-Identifier: LGPL-2.1-or-later
#include "video_frame_check.h"

#include <cstdint>

namespace gpusift::gst {

namespace {

std::string size_text(guint width, guint height) {
  return std::to_string(width) + "x" + std::to_string(height);
}

}  // namespace

std::string buffer_layout_problem(GstBuffer* buffer, const GstVideoInfo& info) {
  const GstVideoMeta* meta = gst_buffer_get_video_meta(buffer);
  const guint width = GST_VIDEO_INFO_WIDTH(&info);
  const guint height = GST_VIDEO_INFO_HEIGHT(&info);
  if (meta == nullptr) {
    const gsize size = gst_buffer_get_size(buffer);
    if (size >= GST_VIDEO_INFO_SIZE(&info))
      return "";
    return "a buffer of " + std::to_string(size) + " bytes is smaller than the " +
           std::to_string(GST_VIDEO_INFO_SIZE(&info)) + " bytes its caps need for " +
           size_text(width, height) + " " + GST_VIDEO_INFO_NAME(&info);
  }
  // gst_video_frame_map() asserts these with criticals; an error is the stream's problem instead.
  if (meta->format == GST_VIDEO_INFO_FORMAT(&info) && meta->width >= width &&
      meta->height >= height && meta->n_planes == GST_VIDEO_INFO_N_PLANES(&info))
    return "";
  return std::string("the video meta describes ") + gst_video_format_to_string(meta->format) + " " +
         size_text(meta->width, meta->height) + " in " + std::to_string(meta->n_planes) +
         " planes, the caps " + GST_VIDEO_INFO_NAME(&info) + " " + size_text(width, height) +
         " in " + std::to_string(GST_VIDEO_INFO_N_PLANES(&info));
}

std::string plane_rows_problem(const GstVideoFrame& frame, guint plane, gint64 stride,
                               size_t row_bytes, int rows) {
  const std::string name = "plane " + std::to_string(plane);
  if (stride < static_cast<gint64>(row_bytes))
    return name + ": stride " + std::to_string(stride) + " is shorter than a row of " +
           std::to_string(row_bytes) + " bytes";
  // Without a video meta the whole buffer is map[0]; with one, each plane has its own map.
  const GstMapInfo& map = frame.map[frame.meta != nullptr ? plane : 0];
  const auto start = reinterpret_cast<uintptr_t>(GST_VIDEO_FRAME_PLANE_DATA(&frame, plane));
  const auto mapped = reinterpret_cast<uintptr_t>(map.data);
  const size_t available =
      start >= mapped && start - mapped <= map.size ? map.size - (start - mapped) : 0;
  // rows <= 16384 and stride < 2^31: no overflow.
  const size_t needed = static_cast<size_t>(stride) * static_cast<size_t>(rows - 1) + row_bytes;
  if (needed <= available)
    return "";
  return name + " needs " + std::to_string(needed) + " bytes (" + std::to_string(rows) +
         " rows, stride " + std::to_string(stride) + ") but " + std::to_string(available) +
         " follow its start in the buffer";
}

}  // namespace gpusift::gst
