// SPDX-License-Identifier: LGPL-2.1-or-later
#include "video_luma_range.h"

namespace gpusift::gst {

LumaRange luma_range_of(const GstVideoInfo& info) {
  switch (GST_VIDEO_INFO_COLORIMETRY(&info).range) {
    case GST_VIDEO_COLOR_RANGE_16_235:
      return LumaRange::kLimited;
    case GST_VIDEO_COLOR_RANGE_0_255:
      return LumaRange::kFull;
    default:
      return GST_VIDEO_INFO_IS_YUV(&info) ? LumaRange::kLimited : LumaRange::kFull;
  }
}

}  // namespace gpusift::gst
