/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The frame as keypointtracker's core reads it, taken from a buffer's metas: keypoints and host
 * descriptors from GstKeypointsMeta, and with gstreamer-cuda the device copy of the descriptors
 * from GstKeypointsDeviceMeta when it lives in the tracker's own CUDA context. */
#pragma once

#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>

#include "base/cuda_context_scope.h"
#include "gpusift/keypoint_tracking.h"

namespace gpusift::gst {

// The tracker keeps the descriptor storage (not the buffer, which would hold pool buffers back)
// for as long as it matches against this frame. `context` may be null (the CPU backend).
tracking::FrameFeatures tracker_frame(GstBuffer* buffer, const GstKeypointsMeta* meta,
                                      CudaContextPointer context);

}  // namespace gpusift::gst
