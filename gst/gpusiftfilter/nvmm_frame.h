/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A memory:NVMM frame (Jetson) as the CUDA extractor reads it: the buffer's NvBufSurface, its EGL
 * image registered with CUDA, and a device pointer to the luma or packed plane. The Jetson
 * headers stay in nvmm_frame.cpp. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <string>

#include "base/cuda_context_scope.h"
#include "base/non_copyable.h"
#include "gpusift/frame.h"

#define GPUSIFT_CAPS_FEATURE_MEMORY_NVMM "memory:NVMM"

struct cudaGraphicsResource;

namespace gpusift::gst {

// Where a frame's CUDA calls go: the element's GstCudaContext with gstreamer-cuda; without it
// (GStreamer 1.20, JetPack 6) the CUDA device device_id (-1: 0), made current around them.
struct NvmmCudaTarget {
  CudaContextPointer context;
  int device_id;
};

// Holds the mapping and the CUDA registration until release() or destruction, which must come
// only once the extractor no longer reads the pixels (after extract(), collect() or cancel()).
class NvmmFrame : NonCopyable {
 public:
  NvmmFrame() = default;
  ~NvmmFrame() { release(); }

  // Maps `buffer`, a memory:NVMM frame of `info` (NV12, RGBA or GRAY8), for reading on `target`
  // (null when the stream runs on the CPU backend, which cannot read it). Empty on success, with
  // `view` reading the luma or packed plane in device memory; otherwise what is wrong, and
  // nothing is held. `buffer` must outlive the mapping.
  std::string map(const NvmmCudaTarget* target, GstBuffer* buffer, const GstVideoInfo& info,
                  FrameView* view);
  // Unregisters and unmaps (on the target of map()); nothing when nothing is held.
  void release();

 private:
  std::string map_surface(const GstVideoInfo& info, FrameView* view);

  GstBuffer* buffer_ = nullptr;  // mapped into map_ when set
  GstMapInfo map_{};
  void* surface_ = nullptr;  // the NvBufSurface whose first EGL image is mapped, when set
  cudaGraphicsResource* resource_ = nullptr;
  NvmmCudaTarget target_{nullptr, -1};  // its context a reference, while surface_ is set
};

}  // namespace gpusift::gst
