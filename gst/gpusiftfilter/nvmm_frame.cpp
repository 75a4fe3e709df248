// SPDX-License-Identifier: LGPL-2.1-or-later
#include "nvmm_frame.h"

#include <cuda_egl_interop.h>
#include <cuda_runtime_api.h>
#include <nvbufsurface.h>

#include <string>

#include "base/video_luma_range.h"
#include "extractor_frame.h"

namespace gpusift::gst {

namespace {

// nvarguscamerasrc and nvvidconv (bl-output defaults to true) make block-linear NV12 surfaces.
constexpr char kBlockLinear[] =
    "a block-linear surface, which maps to a CUDA array; gpusiftfilter reads pitch-linear "
    "surfaces (put nvvidconv bl-output=false before it)";

std::string cuda_problem(const char* call, cudaError_t status) {
  return std::string(call) + " failed: " + cudaGetErrorName(status) + " (" +
         cudaGetErrorString(status) + ")";
}

// NV12 in any 8-bit range and matrix: the luma plane reads the same.
bool holds_format(NvBufSurfaceColorFormat surface, GstVideoFormat format) {
  switch (format) {
    case GST_VIDEO_FORMAT_NV12:
      return surface == NVBUF_COLOR_FORMAT_NV12 || surface == NVBUF_COLOR_FORMAT_NV12_ER ||
             surface == NVBUF_COLOR_FORMAT_NV12_709 || surface == NVBUF_COLOR_FORMAT_NV12_709_ER ||
             surface == NVBUF_COLOR_FORMAT_NV12_2020;
    case GST_VIDEO_FORMAT_RGBA:
      return surface == NVBUF_COLOR_FORMAT_RGBA;
    case GST_VIDEO_FORMAT_GRAY8:
      return surface == NVBUF_COLOR_FORMAT_GRAY8;
    default:
      return false;
  }
}

// What makes `map` no NvBufSurface of one frame of `info` that CUDA can read in place; empty when
// nothing does. Memory as large as a descriptor cannot be told from one: only its fields are
// checked.
std::string descriptor_problem(const GstMapInfo& map, const GstVideoInfo& info) {
  if (map.size < sizeof(NvBufSurface))
    return "the buffer holds " + std::to_string(map.size) + " bytes, less than the " +
           std::to_string(sizeof(NvBufSurface)) +
           " of an NvBufSurface: not NVMM memory (or nvbufsurface.h of another JetPack)";
  const auto* surface = reinterpret_cast<const NvBufSurface*>(map.data);
  if (!surface->surfaceList || surface->numFilled != 1 || surface->batchSize < 1)
    return "not an NvBufSurface of one frame (batchSize " + std::to_string(surface->batchSize) +
           ", numFilled " + std::to_string(surface->numFilled) + ")";
  const NvBufSurfaceParams& params = surface->surfaceList[0];
  const guint width = GST_VIDEO_INFO_WIDTH(&info), height = GST_VIDEO_INFO_HEIGHT(&info);
  if (params.width < width || params.height < height)
    return "the surface is " + std::to_string(params.width) + "x" + std::to_string(params.height) +
           ", the caps say " + std::to_string(width) + "x" + std::to_string(height);
  if (!holds_format(params.colorFormat, GST_VIDEO_INFO_FORMAT(&info)))
    return std::string("the surface's NvBufSurfaceColorFormat ") +
           std::to_string(static_cast<int>(params.colorFormat)) + " is not the caps' " +
           gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info));
  if (params.layout != NVBUF_LAYOUT_PITCH)
    return kBlockLinear;
  return "";
}

// Makes `target` current for the scope.
class TargetScope {
 public:
  explicit TargetScope(const NvmmCudaTarget& target) : context_(target.context) {
#ifndef GPUSIFT_HAVE_GST_CUDA
    const int device = target.device_id < 0 ? 0 : target.device_id;
    if (cudaGetDevice(&previous_) == cudaSuccess && previous_ != device &&
        cudaSetDevice(device) == cudaSuccess)
      restore_ = true;
#endif
  }
  ~TargetScope() {
    if (restore_)
      cudaSetDevice(previous_);
  }
  TargetScope(const TargetScope&) = delete;
  TargetScope& operator=(const TargetScope&) = delete;

 private:
  CudaContextScope context_;
  int previous_ = 0;
  bool restore_ = false;
};

}  // namespace

std::string NvmmFrame::map(const NvmmCudaTarget* target, GstBuffer* buffer,
                           const GstVideoInfo& info, FrameView* view) {
  release();
  // Mapping several memories would merge them into a copy, which is no NvBufSurface.
  if (gst_buffer_n_memory(buffer) != 1)
    return "a memory:NVMM buffer of " + std::to_string(gst_buffer_n_memory(buffer)) +
           " memories; NVMM buffers hold one, the NvBufSurface";
  if (!gst_buffer_map(buffer, &map_, GST_MAP_READ))
    return "the memory:NVMM buffer cannot be mapped for reading";
  buffer_ = buffer;
  std::string problem = descriptor_problem(map_, info);
  if (problem.empty() && !target)
    problem = "memory:NVMM frames are read by CUDA, and this stream runs on the CPU backend";
  if (problem.empty()) {
    target_ = *target;
#ifdef GPUSIFT_HAVE_GST_CUDA
    gst_object_ref(target_.context);
#endif
    problem = map_surface(info, view);
  }
  if (!problem.empty())
    release();
  return problem;
}

std::string NvmmFrame::map_surface(const GstVideoInfo& info, FrameView* view) {
  auto* surface = reinterpret_cast<NvBufSurface*>(map_.data);
  if (NvBufSurfaceMapEglImage(surface, 0) != 0)
    return "NvBufSurfaceMapEglImage failed (memType " +
           std::to_string(static_cast<int>(surface->memType)) +
           "; only surface-array memory has EGL images)";
  surface_ = surface;
  void* image = surface->surfaceList[0].mappedAddr.eglImage;
  if (!image)
    return "NvBufSurfaceMapEglImage left no EGL image";
  TargetScope scope(target_);
  // The runtime's EGL interop works on the context made current above, as the extractor does.
  const cudaError_t registered = cudaGraphicsEGLRegisterImage(
      &resource_, static_cast<EGLImageKHR>(image), cudaGraphicsRegisterFlagsNone);
  if (registered != cudaSuccess) {
    resource_ = nullptr;
    return cuda_problem("cudaGraphicsEGLRegisterImage", registered);
  }
  cudaEglFrame frame{};
  const cudaError_t mapped = cudaGraphicsResourceGetMappedEglFrame(&frame, resource_, 0, 0);
  if (mapped != cudaSuccess)
    return cuda_problem("cudaGraphicsResourceGetMappedEglFrame", mapped);
  if (frame.frameType != cudaEglFrameTypePitch)
    return std::string("the EGL frame is a CUDA array, not pitched memory: ") + kBlockLinear;
  PixelFormat format = PixelFormat::kGray8;
  pixel_format_of(GST_VIDEO_INFO_FORMAT(&info), &format);
  const int width = GST_VIDEO_INFO_WIDTH(&info), height = GST_VIDEO_INFO_HEIGHT(&info);
  const cudaPitchedPtr plane = frame.frame.pPitch[0];
  const size_t row_bytes = static_cast<size_t>(width) * bytes_per_pixel(format);
  if (!plane.ptr || plane.pitch < row_bytes ||
      frame.planeDesc[0].width < static_cast<guint>(width) ||
      frame.planeDesc[0].height < static_cast<guint>(height))
    return "the EGL frame's first plane (" + std::to_string(frame.planeDesc[0].width) + "x" +
           std::to_string(frame.planeDesc[0].height) + ", pitch " + std::to_string(plane.pitch) +
           ") does not hold " + std::to_string(width) + "x" + std::to_string(height) + " pixels";
  // The extractor checks device frames with cudaPointerGetAttributes. On Jetson a mapped EGL
  // frame is taken to report device memory of device 0 (unverified: nothing of this has run on
  // a Jetson); if it does not, the extractor refuses the frame with an error, it reads nothing.
  *view = FrameView{plane.ptr,           plane.pitch,        width, height, format,
                    MemoryKind::kDevice, luma_range_of(info)};
  return "";
}

void NvmmFrame::release() {
  if (resource_) {
    TargetScope scope(target_);
    const cudaError_t status = cudaGraphicsUnregisterResource(resource_);
    if (status != cudaSuccess)
      GST_WARNING("%s", cuda_problem("cudaGraphicsUnregisterResource", status).c_str());
    resource_ = nullptr;
  }
  if (surface_) {
    if (NvBufSurfaceUnMapEglImage(static_cast<NvBufSurface*>(surface_), 0) != 0)
      GST_WARNING("NvBufSurfaceUnMapEglImage failed");
    surface_ = nullptr;
  }
#ifdef GPUSIFT_HAVE_GST_CUDA
  if (target_.context)
    gst_object_unref(target_.context);
#endif
  target_ = NvmmCudaTarget{nullptr, -1};
  if (buffer_) {
    gst_buffer_unmap(buffer_, &map_);
    buffer_ = nullptr;
  }
}

}  // namespace gpusift::gst
