// SPDX-License-Identifier: LGPL-2.1-or-later
#include "matching_backend.h"

#include "element_cuda_objects.h"

#ifdef GPUSIFT_HAVE_GST_CUDA
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>
#endif

namespace gpusift::gst {

bool resolve_matching_backend(GstElement* element, int cuda_device_id, Backend* backend,
                              CudaContextPointer* context) {
  if (*backend == Backend::kCpu)
    return true;
#ifdef GPUSIFT_HAVE_GST_CUDA
  if (gst_cuda_load_library() &&
      gst_cuda_ensure_element_context(element, cuda_device_id, context)) {
    *backend = Backend::kCuda;
    return true;
  }
  const char* reason = "no usable CUDA device or driver";
#else
  (void)context;
  if (cuda_device_present(cuda_device_id)) {
    *backend = Backend::kCuda;
    return true;
  }
  const char* reason = "no CUDA device (or the CUDA backend is not built) with that id";
#endif
  if (*backend == Backend::kCuda) {
    GST_ELEMENT_ERROR(element, RESOURCE, NOT_FOUND, ("The CUDA backend is not available"),
                      ("%s (backend=cuda)", reason));
    return false;
  }
  // gpusiftfilter upstream already warns when the GPU is missing; once is enough.
  GST_INFO_OBJECT(element, "%s: matching on the CPU", reason);
  *backend = Backend::kCpu;
  return true;
}

void post_matching_error(GstElement* element, const Error& error, const char* doing) {
  switch (error.code()) {
    case ErrorCode::kOutOfMemory:
      GST_ELEMENT_ERROR(element, RESOURCE, NO_SPACE_LEFT, ("Out of memory %s", doing),
                        ("%s", error.what()));
      break;
    case ErrorCode::kNoDevice:
      GST_ELEMENT_ERROR(element, RESOURCE, NOT_FOUND, ("No usable CUDA device"),
                        ("%s", error.what()));
      break;
    case ErrorCode::kDeviceFailure:
      GST_ELEMENT_ERROR(element, RESOURCE, FAILED, ("CUDA failure %s", doing),
                        ("%s", error.what()));
      break;
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kFrameTooLarge:
      GST_ELEMENT_ERROR(element, STREAM, FAILED, ("Failure %s", doing), ("%s", error.what()));
      break;
  }
}

}  // namespace gpusift::gst
