/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* keypointfilesink: writes every buffer's GstKeypointsMeta to a gpusift features file. */
#pragma once

#include <gst/base/gstbasesink.h>
#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_KEYPOINT_FILE_SINK (gst_keypoint_file_sink_get_type())
G_DECLARE_FINAL_TYPE(GstKeypointFileSink, gst_keypoint_file_sink, GST, KEYPOINT_FILE_SINK,
                     GstBaseSink)

GST_ELEMENT_REGISTER_DECLARE(keypointfilesink);

G_END_DECLS
