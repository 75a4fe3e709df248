// SPDX-License-Identifier: LGPL-2.1-or-later
#include "scene_buffer.h"

#include <gst/video/video.h>

namespace gpusift::soak {

GstBuffer* scene_frame_buffer(const SyntheticScene& scene, long index, GstClockTime duration) {
  const FrameWindow w = scene.window(index);
  const size_t stride = static_cast<size_t>(scene.texture_width());
  const size_t offset = static_cast<size_t>(w.y) * stride + w.x;
  const size_t span = stride * (scene.frame_height() - 1) + scene.frame_width();
  const size_t texture_size = stride * scene.texture_height();
  GstBuffer* buffer =
      gst_buffer_new_wrapped_full(GST_MEMORY_FLAG_READONLY, const_cast<uint8_t*>(scene.texture()),
                                  texture_size, offset, span, nullptr, nullptr);
  gsize offsets[GST_VIDEO_MAX_PLANES] = {0};
  gint strides[GST_VIDEO_MAX_PLANES] = {static_cast<gint>(stride)};
  gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY8,
                                 scene.frame_width(), scene.frame_height(), 1, offsets, strides);
  GST_BUFFER_PTS(buffer) = index * duration;
  GST_BUFFER_DURATION(buffer) = duration;
  return buffer;
}

}  // namespace gpusift::soak
