// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tracker_frame.h"

#include "gpusift/error.h"
#include "keypoints/gstkeypointsdevicemeta.h"

#ifdef GPUSIFT_HAVE_GST_CUDA
#include <gst/cuda/gstcudamemory.h>
#endif

#include <string>

namespace gpusift::gst {

namespace {

// What a frame's descriptor views point into, released when the tracker is done with the frame.
struct HeldDescriptors {
  GBytes* host = nullptr;
  GstBuffer* device = nullptr;
  GstMapInfo device_map{};

  HeldDescriptors() = default;
  HeldDescriptors(const HeldDescriptors&) = delete;
  HeldDescriptors& operator=(const HeldDescriptors&) = delete;
  ~HeldDescriptors() {
    if (device) {
      gst_buffer_unmap(device, &device_map);
      gst_buffer_unref(device);
    }
    if (host)
      g_bytes_unref(host);
  }
};

DescriptorFormat descriptor_format_of(GstKeypointsDescriptorType type) {
  return type == GST_KEYPOINTS_DESCRIPTOR_UINT8 ? DescriptorFormat::kUint8
                                                : DescriptorFormat::kFloat;
}

// Maps the device rows for as long as `held` lives; false when they are not this context's or
// not the host rows' shape.
bool hold_device_rows(GstBuffer* buffer, const tracking::FrameFeatures& frame,
                      CudaContextPointer context, HeldDescriptors* held) {
#ifdef GPUSIFT_HAVE_GST_CUDA
  const GstKeypointsDeviceMeta* device = gst_buffer_get_keypoints_device_meta(buffer);
  const gsize value = frame.host.format == DescriptorFormat::kUint8 ? 1 : sizeof(float);
  if (!context || !device || device->context != GST_OBJECT(context) ||
      device->n_rows != static_cast<guint>(frame.count) ||
      device->row_bytes != static_cast<gsize>(frame.host.size) * value)
    return false;
  GstMemory* memory = gst_buffer_peek_memory(device->memory, 0);
  if (!gst_is_cuda_memory(memory) ||
      !gst_buffer_map(device->memory, &held->device_map,
                      static_cast<GstMapFlags>(GST_MAP_READ | GST_MAP_CUDA)))
    return false;
  held->device = gst_buffer_ref(device->memory);
  // The rows' shape matched the host rows; their memory must hold them too, or the kernels
  // would read past it.
  const gsize needed = static_cast<gsize>(device->n_rows) * device->row_bytes;
  if (held->device_map.size < needed)
    throw Error(ErrorCode::kInvalidArgument,
                "inconsistent GstKeypointsDeviceMeta: " + std::to_string(device->n_rows) +
                    " rows of " + std::to_string(device->row_bytes) + " bytes past its memory of " +
                    std::to_string(held->device_map.size) + " bytes");
  return true;
#else
  (void)buffer;
  (void)frame;
  (void)context;
  (void)held;
  return false;
#endif
}

}  // namespace

tracking::FrameFeatures tracker_frame(GstBuffer* buffer, const GstKeypointsMeta* meta,
                                      CudaContextPointer context) {
  tracking::FrameFeatures frame;
  frame.keypoints = reinterpret_cast<const Keypoint*>(meta->keypoints);
  frame.count = static_cast<int>(meta->n_keypoints);
  frame.host =
      DescriptorSetView{meta->descriptors, frame.count, static_cast<int>(meta->descriptor_size),
                        descriptor_format_of(meta->descriptor_type), MemoryKind::kHost};
  auto held = std::make_shared<HeldDescriptors>();
  held->host = gst_keypoints_meta_get_descriptors_bytes(meta);
  if (frame.count > 0 && hold_device_rows(buffer, frame, context, held.get())) {
    frame.device = frame.host;
    frame.device.data = held->device_map.data;
    frame.device.memory = MemoryKind::kDevice;
  }
  frame.owner = std::move(held);
  return frame;
}

}  // namespace gpusift::gst
