/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* keypointmatcher: finds a known planar object in every frame from the frame's GstKeypointsMeta. */
#pragma once

#include <gst/gst.h>

#include "base/gstkeypointbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_KEYPOINT_MATCHER (gst_keypoint_matcher_get_type())
G_DECLARE_FINAL_TYPE(GstKeypointMatcher, gst_keypoint_matcher, GST, KEYPOINT_MATCHER,
                     GstKeypointBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(keypointmatcher);

G_END_DECLS
