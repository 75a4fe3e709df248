// SPDX-License-Identifier: LGPL-2.1-or-later
#include "pinned_host_pool.h"

#include <gst/cuda/gstcudaloader.h>
#if __has_include(<gst/cuda/cuda-gst.h>)
#include <gst/cuda/cuda-gst.h>  // the driver API's loaded entry points, Cu*, up to 1.22
#endif

namespace gpusift::gst {

namespace {

struct PinnedMemory {
  GstMemory memory;
  guint8* data;  // of the whole allocation; shares point into their parent's
};

struct PinnedAllocator {
  GstAllocator parent;
  GstCudaContext* context;
};

struct PinnedAllocatorClass {
  GstAllocatorClass parent_class;
};

GType pinned_allocator_get_type();
G_DEFINE_TYPE(PinnedAllocator, pinned_allocator, GST_TYPE_ALLOCATOR)

GstMemory* pinned_alloc(GstAllocator* allocator, gsize size, GstAllocationParams* params) {
  auto* self = reinterpret_cast<PinnedAllocator*>(allocator);
  const gsize maxsize = size + params->prefix + params->padding;
  void* data = nullptr;
  if (!gst_cuda_context_push(self->context))
    return nullptr;
  const CUresult result = CuMemAllocHost(&data, maxsize);
  gst_cuda_context_pop(nullptr);
  if (result != CUDA_SUCCESS || !data) {
    GST_WARNING_OBJECT(allocator, "no pinned memory for %" G_GSIZE_FORMAT " bytes", maxsize);
    return nullptr;
  }
  auto* memory = g_new0(PinnedMemory, 1);
  gst_memory_init(&memory->memory, static_cast<GstMemoryFlags>(params->flags), allocator, nullptr,
                  maxsize, params->align, params->prefix, size);
  memory->data = static_cast<guint8*>(data);
  return &memory->memory;
}

void pinned_free(GstAllocator* allocator, GstMemory* memory) {
  auto* self = reinterpret_cast<PinnedAllocator*>(allocator);
  auto* pinned = reinterpret_cast<PinnedMemory*>(memory);
  if (!memory->parent && gst_cuda_context_push(self->context)) {
    CuMemFreeHost(pinned->data);
    gst_cuda_context_pop(nullptr);
  }
  g_free(pinned);
}

gpointer pinned_map(GstMemory* memory, gsize, GstMapFlags) {
  return reinterpret_cast<PinnedMemory*>(memory)->data;
}

void pinned_unmap(GstMemory*) {}

GstMemory* pinned_share(GstMemory* memory, gssize offset, gssize size) {
  auto* pinned = reinterpret_cast<PinnedMemory*>(memory);
  GstMemory* parent = memory->parent ? memory->parent : memory;
  if (size == -1)
    size = static_cast<gssize>(memory->size) - offset;
  auto* shared = g_new0(PinnedMemory, 1);
  gst_memory_init(&shared->memory,
                  static_cast<GstMemoryFlags>(GST_MINI_OBJECT_FLAGS(parent) |
                                              GST_MINI_OBJECT_FLAG_LOCK_READONLY),
                  memory->allocator, parent, memory->maxsize, memory->align,
                  memory->offset + offset, static_cast<gsize>(size));
  shared->data = pinned->data;
  return &shared->memory;
}

void pinned_allocator_finalize(GObject* object) {
  auto* self = reinterpret_cast<PinnedAllocator*>(object);
  gst_clear_object(&self->context);
  G_OBJECT_CLASS(pinned_allocator_parent_class)->finalize(object);
}

void pinned_allocator_class_init(PinnedAllocatorClass* klass) {
  G_OBJECT_CLASS(klass)->finalize = pinned_allocator_finalize;
  GST_ALLOCATOR_CLASS(klass)->alloc = pinned_alloc;
  GST_ALLOCATOR_CLASS(klass)->free = pinned_free;
}

void pinned_allocator_init(PinnedAllocator* self) {
  GstAllocator* allocator = GST_ALLOCATOR_CAST(self);
  allocator->mem_type = kPinnedHostAllocatorName;
  allocator->mem_map = pinned_map;
  allocator->mem_unmap = pinned_unmap;
  allocator->mem_share = pinned_share;
  self->context = nullptr;
}

}  // namespace

GstAllocator* pinned_host_allocator_new(GstCudaContext* context) {
  auto* allocator =
      static_cast<PinnedAllocator*>(g_object_new(pinned_allocator_get_type(), nullptr));
  gst_object_ref_sink(allocator);
  allocator->context = static_cast<GstCudaContext*>(gst_object_ref(context));
  return GST_ALLOCATOR_CAST(allocator);
}

GstBufferPool* pinned_host_video_pool_new(GstAllocator* allocator, const GstVideoInfo& info) {
  GstBufferPool* pool = gst_video_buffer_pool_new();
  GstStructure* config = gst_buffer_pool_get_config(pool);
  GstCaps* caps = gst_video_info_to_caps(&info);
  gst_buffer_pool_config_set_params(config, caps, static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)), 0,
                                    0);
  gst_caps_unref(caps);
  gst_buffer_pool_config_set_allocator(config, allocator, nullptr);
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config(pool, config)) {
    gst_object_unref(pool);
    return nullptr;
  }
  return pool;
}

}  // namespace gpusift::gst
