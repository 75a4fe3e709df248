// SPDX-License-Identifier: LGPL-2.1-or-later
// Still images through GStreamer's own decoders and encoders, so that the demo needs no
// OpenCV codec libraries (a GPU host may have GStreamer but not those).
#pragma once

#include <gst/gst.h>

#include <opencv2/core.hpp>
#include <string>

namespace gpusift::demo {

// Any image GStreamer decodes, as BGR; an empty Mat (and a message on stderr) on failure.
cv::Mat read_image_bgr(const std::string& path);

// Writes the video buffer (with caps) as a PNG file; false on failure.
bool write_png(GstBuffer* buffer, GstCaps* caps, const std::string& path);

}  // namespace gpusift::demo
