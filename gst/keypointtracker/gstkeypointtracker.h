/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* keypointtracker: keypoint tracks and camera motion from the GstKeypointsMeta of each frame. */
#pragma once

#include <gst/gst.h>

#include "base/gstkeypointbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_KEYPOINT_TRACKER (gst_keypoint_tracker_get_type())
G_DECLARE_FINAL_TYPE(GstKeypointTracker, gst_keypoint_tracker, GST, KEYPOINT_TRACKER,
                     GstKeypointBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(keypointtracker);

G_END_DECLS
