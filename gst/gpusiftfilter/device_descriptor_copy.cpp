// SPDX-License-Identifier: LGPL-2.1-or-later
#include "device_descriptor_copy.h"

#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudaloader.h>
#if __has_include(<gst/cuda/cuda-gst.h>)
#include <gst/cuda/cuda-gst.h>  // the driver API's loaded entry points, Cu*, up to 1.22
#endif
#include <gst/cuda/gstcudamemory.h>
#include <gst/video/video.h>

#include "keypoints/gstkeypointsdevicemeta.h"

namespace gpusift::gst {

namespace {

// Rows of this many bytes: a multiple of every GPU's pitch alignment, so that the pooled pitched
// memory is one contiguous run (checked on each buffer all the same).
constexpr gint kPoolRowBytes = 4096;
constexpr gsize kMinCapacity = 64 * 1024;

gsize descriptor_bytes(const DeviceFeatures& f) {
  const gsize value = f.descriptor_format == DescriptorFormat::kUint8 ? 1 : sizeof(float);
  return static_cast<gsize>(f.count) * static_cast<gsize>(f.descriptor_size) * value;
}

bool contiguous(GstBuffer* pooled) {
  GstMemory* memory = gst_buffer_peek_memory(pooled, 0);
  return gst_is_cuda_memory(memory) &&
         GST_VIDEO_INFO_PLANE_STRIDE(&GST_CUDA_MEMORY_CAST(memory)->info, 0) == kPoolRowBytes;
}

}  // namespace

void DeviceDescriptorCopies::release() {
  if (pool_) {
    gst_buffer_pool_set_active(pool_, FALSE);
    gst_clear_object(&pool_);
  }
  capacity_ = 0;
}

// A pool of buffers of at least `bytes`, grown to the next power of two so that it is rarely
// re-made; buffers of an old pool stay valid until their frames are gone.
bool DeviceDescriptorCopies::ensure_pool(GstCudaContext* context, gsize bytes) {
  if (pool_ && bytes <= capacity_)
    return true;
  release();
  gsize capacity = kMinCapacity;
  while (capacity < bytes)
    capacity *= 2;
  GstVideoInfo info;
  // RGBA because GStreamer 1.20-1.22's CUDA allocator aborts on formats it has no layout for,
  // GRAY8 among them.
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_RGBA, kPoolRowBytes / 4,
                            static_cast<guint>(capacity / kPoolRowBytes));
  GstCaps* caps = gst_video_info_to_caps(&info);
  pool_ = gst_cuda_buffer_pool_new(context);
  GstStructure* config = gst_buffer_pool_get_config(pool_);
  gst_buffer_pool_config_set_params(config, caps, static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)), 0,
                                    0);
  gst_caps_unref(caps);
  if (!gst_buffer_pool_set_config(pool_, config) || !gst_buffer_pool_set_active(pool_, TRUE)) {
    gst_clear_object(&pool_);
    return false;
  }
  capacity_ = capacity;
  return true;
}

bool DeviceDescriptorCopies::attach(GstCudaContext* context, const DeviceFeatures& features,
                                    GstBuffer* buffer) {
  const gsize bytes = descriptor_bytes(features);
  if (features.count <= 0 || !features.descriptors || bytes == 0 || !ensure_pool(context, bytes))
    return false;
  GstBuffer* pooled = nullptr;
  if (gst_buffer_pool_acquire_buffer(pool_, &pooled, nullptr) != GST_FLOW_OK)
    return false;
  GstMapInfo map;
  if (!contiguous(pooled) ||
      !gst_buffer_map(pooled, &map, static_cast<GstMapFlags>(GST_MAP_WRITE | GST_MAP_CUDA))) {
    gst_buffer_unref(pooled);
    return false;
  }
  CUDA_MEMCPY2D copy = {};
  copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.srcDevice = reinterpret_cast<CUdeviceptr>(features.descriptors);
  copy.srcPitch = bytes;
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = reinterpret_cast<CUdeviceptr>(map.data);
  copy.dstPitch = bytes;
  copy.WidthInBytes = bytes;
  copy.Height = 1;
  const bool copied = CuMemcpy2DAsync(&copy, nullptr) == CUDA_SUCCESS;
  gst_buffer_unmap(pooled, &map);
  if (copied) {
    const guint row_bytes = static_cast<guint>(bytes / static_cast<gsize>(features.count));
    gst_buffer_add_keypoints_device_meta(buffer, pooled, GST_OBJECT(context),
                                         static_cast<guint>(features.count), row_bytes);
  }
  gst_buffer_unref(pooled);
  return copied;
}

}  // namespace gpusift::gst
