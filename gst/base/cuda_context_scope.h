/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA context plumbing the elements share: a GstCudaContext made current for a scope. Built
 * only with gstreamer-cuda; without it the scope does nothing. */
#pragma once

#include <gst/gst.h>

#ifdef GPUSIFT_HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#endif

namespace gpusift::gst {

#ifdef GPUSIFT_HAVE_GST_CUDA
using CudaContextPointer = GstCudaContext*;
#else
using CudaContextPointer = gpointer;
#endif

// Pushes the context for the scope; nothing for a null context (the CPU backend).
class CudaContextScope {
 public:
  explicit CudaContextScope(CudaContextPointer context) {
#ifdef GPUSIFT_HAVE_GST_CUDA
    pushed_ = context && gst_cuda_context_push(context);
#else
    (void)context;
#endif
  }
  ~CudaContextScope() {
#ifdef GPUSIFT_HAVE_GST_CUDA
    if (pushed_)
      gst_cuda_context_pop(nullptr);
#endif
  }
  CudaContextScope(const CudaContextScope&) = delete;
  CudaContextScope& operator=(const CudaContextScope&) = delete;

 private:
  bool pushed_ = false;
};

}  // namespace gpusift::gst
