/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one luma convention of the elements: a frame's range as its caps say, so that limited-range
 * video (most YUV from cameras and decoders) is brought to full range before extraction. */
#pragma once

#include <gst/video/video.h>

#include "gpusift/frame.h"

namespace gpusift::gst {

/* The range of the frame's luma (or RGB values) as the caps' colorimetry says; where it says
 * nothing, limited for YUV formats and full for the others, as GStreamer's defaults are. */
LumaRange luma_range_of(const GstVideoInfo& info);

}  // namespace gpusift::gst
