// SPDX-License-Identifier: LGPL-2.1-or-later
#include "pipeline_launch.h"

#include <cstdio>

namespace gpusift::demo {

GstElement* launch_pipeline(const std::string& description) {
  GError* error = nullptr;
  // Without FATAL_ERRORS a missing element still yields a pipeline, one that never ends.
  GstElement* pipeline =
      gst_parse_launch_full(description.c_str(), nullptr, GST_PARSE_FLAG_FATAL_ERRORS, &error);
  if (error) {
    const bool missing = g_error_matches(error, GST_PARSE_ERROR, GST_PARSE_ERROR_NO_SUCH_ELEMENT);
    std::fprintf(stderr, "gpusift-demo: cannot build the pipeline: %s%s\n", error->message,
                 missing ? " (its GStreamer plugin is not installed or not on GST_PLUGIN_PATH; "
                           "tools/scripts/setup.sh installs the packages)"
                         : "");
    g_clear_error(&error);
    if (pipeline)
      gst_object_unref(pipeline);
    return nullptr;
  }
  return pipeline;
}

}  // namespace gpusift::demo
