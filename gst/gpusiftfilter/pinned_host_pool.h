/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Page-locked (pinned) host memory for gpusiftfilter's upstream (GPUSIFT_HAVE_GST_CUDA only):
 * a video buffer pool whose memory the GPU reads directly, offered in the ALLOCATION query so
 * that frames in system memory are uploaded without first being copied into a staging buffer.
 * Allocated in the element's GstCudaContext; ordinary system memory to everything else. */
#pragma once

#include <gst/cuda/gstcudacontext.h>
#include <gst/gst.h>
#include <gst/video/video.h>

namespace gpusift::gst {

// The allocator's name, for tests that check where a buffer's memory came from.
inline constexpr const char* kPinnedHostAllocatorName = "GpusiftPinnedHost";

// An allocator of pinned memory in `context`, which it keeps alive (full reference).
GstAllocator* pinned_host_allocator_new(GstCudaContext* context);

// A GstVideoBufferPool of `info`'s frames from `allocator`, configured but not active; nullptr
// when the configuration is refused.
GstBufferPool* pinned_host_video_pool_new(GstAllocator* allocator, const GstVideoInfo& info);

}  // namespace gpusift::gst
