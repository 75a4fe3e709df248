/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpusiftfilter's device copies of its descriptors (GPUSIFT_HAVE_GST_CUDA only): the extractor's
 * device rows copied, device to device, into pooled CUDA memory of the element's GstCudaContext
 * and attached as GstKeypointsDeviceMeta. The copy is queued on the legacy default stream, which
 * the matchers' streams are ordered after, so readers need no other synchronisation. */
#pragma once

#include <gst/cuda/gstcudacontext.h>
#include <gst/gst.h>

#include "base/non_copyable.h"
#include "gpusift/cuda_sift.h"

namespace gpusift::gst {

class DeviceDescriptorCopies : NonCopyable {
 public:
  DeviceDescriptorCopies() = default;
  ~DeviceDescriptorCopies() { release(); }

  // With `context` pushed. False, attaching nothing, without descriptors or device memory.
  bool attach(GstCudaContext* context, const DeviceFeatures& features, GstBuffer* buffer);
  void release();

 private:
  bool ensure_pool(GstCudaContext* context, gsize bytes);

  GstBufferPool* pool_ = nullptr;
  gsize capacity_ = 0;  // bytes of each pooled buffer
};

}  // namespace gpusift::gst
