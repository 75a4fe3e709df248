// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frame_latency.h"

#include <gst/video/video.h>

namespace gpusift::gst {

bool upstream_is_live(GstBaseTransform* trans) {
  GstQuery* query = gst_query_new_latency();
  gboolean live = FALSE;
  if (gst_pad_peer_query(GST_BASE_TRANSFORM_SINK_PAD(trans), query))
    gst_query_parse_latency(query, &live, nullptr, nullptr);
  gst_query_unref(query);
  return live;
}

bool add_frame_of_latency(GstBaseTransform* trans, GstQuery* query) {
  GstCaps* caps = gst_pad_get_current_caps(GST_BASE_TRANSFORM_SINK_PAD(trans));
  GstVideoInfo info;
  const bool known = caps && gst_video_info_from_caps(&info, caps) && info.fps_n > 0;
  if (caps)
    gst_caps_unref(caps);
  if (!known)
    return false;
  const GstClockTime frame = gst_util_uint64_scale_int(GST_SECOND, info.fps_d, info.fps_n);
  gboolean live = FALSE;
  GstClockTime min = 0, max = GST_CLOCK_TIME_NONE;
  gst_query_parse_latency(query, &live, &min, &max);
  gst_query_set_latency(query, live, min + frame, GST_CLOCK_TIME_IS_VALID(max) ? max + frame : max);
  return true;
}

}  // namespace gpusift::gst
