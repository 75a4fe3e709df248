/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the elements that match keypoints (keypointtracker, keypointmatcher) share: the backend
 * choice, with the CUDA context shared with the neighbours, and library errors as GStreamer
 * errors. */
#pragma once

#include <gst/gst.h>

#include "cuda_context_scope.h"
#include "gpusift/error.h"
#include "gpusift/extractor.h"

namespace gpusift::gst {

// Resolves `auto`: the GPU when a CUDA context can be had (the neighbours' GstCudaContext, so
// gpusiftfilter's, or a new one on cuda_device_id), else the CPU. `backend=cuda` without one
// posts RESOURCE NOT_FOUND and returns false. `context` receives the context for the GPU.
bool resolve_matching_backend(GstElement* element, int cuda_device_id, Backend* backend,
                              CudaContextPointer* context);

// The error as the element's GStreamer error; `doing` completes "Out of memory ..." (e.g.
// "matching keypoints").
void post_matching_error(GstElement* element, const Error& error, const char* doing);

}  // namespace gpusift::gst
