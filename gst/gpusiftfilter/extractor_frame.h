/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpusiftfilter's buffers as the extractor reads them: checked against their caps and mapped. */
#pragma once

#include <gst/video/video.h>

#include "gpusift/frame.h"

namespace gpusift::gst {

/* The extractor's pixel format for a format the element takes (YUV and GRAY8: the luma plane in
 * place); false for any other. */
bool pixel_format_of(GstVideoFormat format, PixelFormat* out);

/* Maps `buffer`, a frame of `info`, for reading in device memory (on_device) or host memory.
 * GST_FLOW_OK with `frame` mapped and `view` reading its luma or packed plane: unmap it once the
 * extractor no longer reads the pixels. Otherwise `element` has posted an error that names the
 * problem and nothing is mapped. */
GstFlowReturn map_extractor_frame(GstElement* element, GstBuffer* buffer, const GstVideoInfo& info,
                                  bool on_device, GstVideoFrame* frame, FrameView* view);

}  // namespace gpusift::gst
