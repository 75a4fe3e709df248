// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer for the harnesses that need it, initialised once per process with every GLib log
// message dropped. Criticals are how the meta library refuses a changed meta or bad arguments,
// the outcome a harness expects, not a finding: they must not end the run (never
// G_DEBUG=fatal-criticals), and thousands a second must not flood the fuzzer's log.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

namespace gpusift::fuzz {

// `with_plugins` false skips the registry (the metas need no element, and the scan would slow
// every start); the reference loader needs the decoders.
inline void init_gstreamer_quietly(bool with_plugins) {
  static const bool initialised = [with_plugins] {
    if (!with_plugins)
      g_setenv("GST_REGISTRY_DISABLE", "yes", TRUE);
    gst_init(nullptr, nullptr);
    g_log_set_default_handler([](const gchar*, GLogLevelFlags, const gchar*, gpointer) {}, nullptr);
    return true;
  }();
  (void)initialised;
}

// The SCALE transform GstBaseTransform's metadata copy passes for videoscale: from a 64x48 GRAY8
// frame to width x height (any values, the harness's input). Not copyable: the transform points
// into it.
class ScaleTransform {
 public:
  ScaleTransform(gint width, gint height) {
    gst_video_info_set_format(&in_info_, GST_VIDEO_FORMAT_GRAY8, 64, 48);
    gst_video_info_init(&out_info_);
    out_info_.finfo = in_info_.finfo;
    out_info_.width = width;
    out_info_.height = height;
  }
  ScaleTransform(const ScaleTransform&) = delete;
  ScaleTransform& operator=(const ScaleTransform&) = delete;

  GstVideoMetaTransform* get() { return &transform_; }

 private:
  GstVideoInfo in_info_, out_info_;
  GstVideoMetaTransform transform_{&in_info_, &out_info_};
};

}  // namespace gpusift::fuzz
