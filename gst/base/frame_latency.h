/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* For elements that can hold a frame back (max-frames-in-flight=2): whether upstream is live, which
 * decides `auto`, and the frame of latency that holding one adds. */
#pragma once

#include <gst/base/gstbasetransform.h>

namespace gpusift::gst {

// Upstream's liveness by the latency query; a query nobody answers counts as not live.
bool upstream_is_live(GstBaseTransform* trans);

// Adds one frame, at the sink caps' frame rate, to an answered latency query. False, leaving the
// query as it was, when the frame rate is unknown.
bool add_frame_of_latency(GstBaseTransform* trans, GstQuery* query);

}  // namespace gpusift::gst
