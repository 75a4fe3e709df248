// SPDX-License-Identifier: LGPL-2.1-or-later
// A frame of the synthetic scene as a GstBuffer, for the appsrc of the soak and the stress run.
#pragma once

#include <gst/gst.h>

#include "synthetic_scene.h"

namespace gpusift::soak {

// Frame `index` (GRAY8 of the scene's frame size) as a buffer that points into the texture,
// without a copy: its video meta gives the texture's stride. PTS index * duration. The scene must
// outlive the buffer.
GstBuffer* scene_frame_buffer(const SyntheticScene& scene, long index, GstClockTime duration);

}  // namespace gpusift::soak
