// SPDX-License-Identifier: LGPL-2.1-or-later
#include "extractor_frame.h"

#include <string>

#include "base/video_luma_range.h"
#include "video_frame_check.h"

#ifdef GPUSIFT_HAVE_GST_CUDA
#include <gst/cuda/gstcudamemory.h>
#endif

namespace gpusift::gst {

namespace {

// The luma row pitch. Device memory without a GstVideoMeta is laid out as its GstCudaMemory
// says (pitched allocations), not as the caps' default strides.
gint luma_stride(GstBuffer* buffer, const GstVideoFrame* frame, bool on_device) {
#ifdef GPUSIFT_HAVE_GST_CUDA
  if (on_device && !gst_buffer_get_video_meta(buffer)) {
    const GstCudaMemory* memory = GST_CUDA_MEMORY_CAST(gst_buffer_peek_memory(buffer, 0));
    return GST_VIDEO_INFO_PLANE_STRIDE(&memory->info, 0);
  }
#else
  (void)buffer;
  (void)on_device;
#endif
  return GST_VIDEO_FRAME_PLANE_STRIDE(frame, 0);
}

}  // namespace

bool pixel_format_of(GstVideoFormat format, PixelFormat* out) {
  switch (format) {
    case GST_VIDEO_FORMAT_GRAY8:
    case GST_VIDEO_FORMAT_NV12:
    case GST_VIDEO_FORMAT_NV21:
    case GST_VIDEO_FORMAT_I420:
    case GST_VIDEO_FORMAT_YV12:
    case GST_VIDEO_FORMAT_Y42B:
    case GST_VIDEO_FORMAT_Y444:
      *out = PixelFormat::kGray8;
      return true;
    case GST_VIDEO_FORMAT_RGBA:
      *out = PixelFormat::kRgba8;
      return true;
    case GST_VIDEO_FORMAT_BGRA:
      *out = PixelFormat::kBgra8;
      return true;
    case GST_VIDEO_FORMAT_RGBx:
      *out = PixelFormat::kRgbx8;
      return true;
    case GST_VIDEO_FORMAT_BGRx:
      *out = PixelFormat::kBgrx8;
      return true;
    case GST_VIDEO_FORMAT_RGB:
      *out = PixelFormat::kRgb8;
      return true;
    case GST_VIDEO_FORMAT_BGR:
      *out = PixelFormat::kBgr8;
      return true;
    default:
      return false;
  }
}

GstFlowReturn map_extractor_frame(GstElement* element, GstBuffer* buffer, const GstVideoInfo& info,
                                  bool on_device, GstVideoFrame* frame, FrameView* view) {
  PixelFormat format;
  if (!pixel_format_of(GST_VIDEO_INFO_FORMAT(&info), &format)) {
    GST_ELEMENT_ERROR(element, STREAM, FORMAT, ("Unsupported video format"), (nullptr));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  const std::string layout_problem = buffer_layout_problem(buffer, info);
  if (!layout_problem.empty()) {
    GST_ELEMENT_ERROR(element, STREAM, FORMAT,
                      ("The buffer does not hold the frame its caps describe"),
                      ("%s", layout_problem.c_str()));
    return GST_FLOW_ERROR;
  }
  GstMapFlags flags = GST_MAP_READ;
#ifdef GPUSIFT_HAVE_GST_CUDA
  if (on_device)
    flags = static_cast<GstMapFlags>(flags | GST_MAP_CUDA);
#endif
  if (!gst_video_frame_map(frame, &info, buffer, flags)) {
    GST_ELEMENT_ERROR(element, STREAM, FAILED, ("Cannot map the video frame"),
                      ("a plane's offset outside the buffer of %" G_GSIZE_FORMAT
                       " bytes, or memory that cannot be mapped for reading",
                       gst_buffer_get_size(buffer)));
    return GST_FLOW_ERROR;
  }
  const gint stride = luma_stride(buffer, frame, on_device);
  const std::string rows_problem = plane_rows_problem(
      *frame, 0, stride,
      static_cast<size_t>(GST_VIDEO_FRAME_WIDTH(frame)) * bytes_per_pixel(format),
      GST_VIDEO_FRAME_HEIGHT(frame));
  if (!rows_problem.empty()) {
    gst_video_frame_unmap(frame);
    GST_ELEMENT_ERROR(element, STREAM, FORMAT, ("The frame's rows leave its buffer"),
                      ("%s", rows_problem.c_str()));
    return GST_FLOW_ERROR;
  }
  *view = FrameView{GST_VIDEO_FRAME_PLANE_DATA(frame, 0),
                    static_cast<size_t>(stride),
                    GST_VIDEO_FRAME_WIDTH(frame),
                    GST_VIDEO_FRAME_HEIGHT(frame),
                    format,
                    on_device ? MemoryKind::kDevice : MemoryKind::kHost,
                    luma_range_of(info)};
  return GST_FLOW_OK;
}

}  // namespace gpusift::gst
