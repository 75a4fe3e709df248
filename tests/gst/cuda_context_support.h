// SPDX-License-Identifier: LGPL-2.1-or-later
/* For the GPU suites: the GstCudaContext an element holds, to check that neighbours share one. */
#pragma once

#include <gst/cuda/gstcudacontext.h>
#include <gst/gst.h>

namespace gpusift::testing {

// The element's GstCudaContext (a new reference), or nullptr when it has none.
inline GstCudaContext* cuda_context_of(GstElement* element) {
  GstContext* context = gst_element_get_context(element, GST_CUDA_CONTEXT_TYPE);
  if (!context)
    return nullptr;
  GstCudaContext* cuda = nullptr;
  gst_structure_get(gst_context_get_structure(context), GST_CUDA_CONTEXT_TYPE,
                    GST_TYPE_CUDA_CONTEXT, &cuda, nullptr);
  gst_context_unref(context);
  return cuda;
}

}  // namespace gpusift::testing
