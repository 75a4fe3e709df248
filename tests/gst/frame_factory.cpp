// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frame_factory.h"

#include <cstring>
#include <opencv2/imgproc.hpp>

namespace gpusift::testing {

namespace {

// The cvtColor code from BGR to the packed RGB layout of `format`, or -1 for planar YUV/gray.
int packed_conversion(GstVideoFormat format) {
  switch (format) {
    case GST_VIDEO_FORMAT_RGB:
      return cv::COLOR_BGR2RGB;
    case GST_VIDEO_FORMAT_BGR:
      return -2;  // already BGR
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_RGBx:
      return cv::COLOR_BGR2RGBA;
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_BGRx:
      return cv::COLOR_BGR2BGRA;
    default:
      return -1;
  }
}

void copy_rows(const cv::Mat& image, GstVideoFrame* frame, int plane) {
  auto* dst = static_cast<uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(frame, plane));
  const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(frame, plane);
  const size_t row_bytes = image.cols * image.elemSize();
  for (int y = 0; y < image.rows; ++y)
    std::memcpy(dst + y * stride, image.ptr(y), row_bytes);
}

}  // namespace

cv::Mat gray_seen_by_element(const cv::Mat& bgr) {
  if (bgr.channels() == 1)
    return bgr;
  cv::Mat gray;
  cv::cvtColor(bgr, gray, cv::COLOR_BGR2GRAY);
  return gray;
}

GstBuffer* make_frame(const cv::Mat& bgr_or_gray, GstVideoFormat format) {
  cv::Mat bgr = bgr_or_gray;
  if (bgr.channels() == 1)
    cv::cvtColor(bgr_or_gray, bgr, cv::COLOR_GRAY2BGR);
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, bgr.cols, bgr.rows);
  GstBuffer* buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  GstVideoFrame frame;
  gst_video_frame_map(&frame, &info, buffer, GST_MAP_WRITE);
  const int conversion = packed_conversion(format);
  if (conversion == -1) {
    for (guint plane = 1; plane < GST_VIDEO_FRAME_N_PLANES(&frame); ++plane) {
      const int rows = GST_VIDEO_FRAME_COMP_HEIGHT(&frame, plane);
      std::memset(GST_VIDEO_FRAME_PLANE_DATA(&frame, plane), 128,
                  static_cast<size_t>(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, plane)) * rows);
    }
    copy_rows(gray_seen_by_element(bgr), &frame, 0);
  } else if (conversion == -2) {
    copy_rows(bgr, &frame, 0);
  } else {
    cv::Mat packed;
    cv::cvtColor(bgr, packed, conversion);
    copy_rows(packed, &frame, 0);
  }
  gst_video_frame_unmap(&frame);
  return buffer;
}

std::string caps_string(GstVideoFormat format, int width, int height) {
  // The luma planes hold full-range gray (gray_seen_by_element), so YUV caps say full range:
  // without a colorimetry GStreamer takes YUV as limited range, which the element expands.
  const GstVideoFormatInfo* info = gst_video_format_get_info(format);
  const std::string full_range = GST_VIDEO_FORMAT_INFO_IS_YUV(info) ? ",colorimetry=1:4:0:0" : "";
  return std::string("video/x-raw,format=") + gst_video_format_to_string(format) +
         ",width=" + std::to_string(width) + ",height=" + std::to_string(height) +
         ",framerate=30/1" + full_range;
}

}  // namespace gpusift::testing
