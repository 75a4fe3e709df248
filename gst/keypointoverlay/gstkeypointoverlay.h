/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* keypointoverlay: draws the keypoints of each buffer's GstKeypointsMeta onto the video. */
#pragma once

#include <gst/gst.h>
#include <gst/video/gstvideofilter.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_TYPE_KEYPOINT_OVERLAY (gst_keypoint_overlay_get_type())
G_DECLARE_FINAL_TYPE(GstKeypointOverlay, gst_keypoint_overlay, GST, KEYPOINT_OVERLAY,
                     GstVideoFilter)

GST_ELEMENT_REGISTER_DECLARE(keypointoverlay)

G_END_DECLS
