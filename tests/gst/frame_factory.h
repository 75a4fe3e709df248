// SPDX-License-Identifier: LGPL-2.1-or-later
// Builds raw video buffers of any format the elements take from an OpenCV BGR or gray image.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <opencv2/core.hpp>
#include <string>

namespace gpusift::testing {

// The gray image the element sees for `bgr` in `format`: the luma plane for YUV and GRAY8
// (filled from OpenCV's BGR-to-gray), the OpenCV conversion for RGB formats.
cv::Mat gray_seen_by_element(const cv::Mat& bgr);

// A buffer of `format` and the image's size; YUV chroma planes are neutral (128).
GstBuffer* make_frame(const cv::Mat& bgr, GstVideoFormat format);

// Caps for make_frame's buffers; YUV ones say full range (colorimetry 1:4:0:0), as their luma is.
std::string caps_string(GstVideoFormat format, int width, int height);

}  // namespace gpusift::testing
