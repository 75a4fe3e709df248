// SPDX-License-Identifier: LGPL-2.1-or-later
// Pipelines from descriptions that fail at once on a missing element instead of running partial.
#pragma once

#include <gst/gst.h>

#include <string>

namespace gpusift::demo {

// The pipeline, or nullptr after one line on stderr naming what is missing.
GstElement* launch_pipeline(const std::string& description);

}  // namespace gpusift::demo
