// SPDX-License-Identifier: LGPL-2.1-or-later
/* gpusiftfilter: runs the SIFT or SURF pipeline on every frame and attaches the features as a
 * GstKeypointsMeta. Pixels are never modified; the buffer is only made metadata-writable (a
 * shallow copy when it is shared), so the element works in place with no pixel copies. With two
 * frames in flight each frame is submitted to the extractor and leaves when the next one has been
 * submitted, so that the GPU works while the streaming thread goes upstream. */
#include "gstgpusiftfilter.h"

#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/video/video.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/element_cuda_objects.h"
#include "extractor_frame.h"
#include "base/feature_settings_query.h"
#include "filter_in_flight.h"
#include "base/frame_latency.h"
#include "gpusift/error.h"
#include "gpusift/extractor.h"
#include "gpusift/keypoint.h"
#include "filter_settings.h"
#include "keypoints/gstkeypointsdevicemeta.h"
#include "recycled_vectors.h"

#ifdef GPUSIFT_HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "device_descriptor_copy.h"
#include "pinned_host_pool.h"
#endif

#ifdef GPUSIFT_HAVE_NVMM
#include "nvmm_frame.h"
#endif

GST_DEBUG_CATEGORY_STATIC(gst_gpusift_filter_debug);
#define GST_CAT_DEFAULT gst_gpusift_filter_debug

using gpusift::Backend;
using gpusift::gst::FilterSettings;

static_assert(sizeof(GstKeypoint) == sizeof(gpusift::Keypoint), "meta keypoints are copied 1:1");
static_assert(offsetof(GstKeypoint, octave) == offsetof(gpusift::Keypoint, octave), "");
static_assert(offsetof(GstKeypoint, class_id) == offsetof(gpusift::Keypoint, class_id), "");

#define SYSTEM_MEMORY_FORMATS \
  "{ GRAY8, NV12, NV21, I420, YV12, Y42B, Y444, RGBA, BGRA, RGBx, BGRx, RGB, BGR }"
#ifdef GPUSIFT_HAVE_NVMM
// First, so that an upstream offering both (nvvidconv) keeps the frames in NVMM memory.
#define NVMM_CAPS \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES(GPUSIFT_CAPS_FEATURE_MEMORY_NVMM, "{ NV12, RGBA, GRAY8 }") ";"
#else
#define NVMM_CAPS ""
#endif
#ifdef GPUSIFT_HAVE_GST_CUDA
#define GPUSIFT_CAPS                                                                       \
  NVMM_CAPS                                                                                \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES(GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, "{ NV12, I420 }") \
  ";" GST_VIDEO_CAPS_MAKE(SYSTEM_MEMORY_FORMATS)
#else
#define GPUSIFT_CAPS NVMM_CAPS GST_VIDEO_CAPS_MAKE(SYSTEM_MEMORY_FORMATS)
#endif

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(GPUSIFT_CAPS));
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(GPUSIFT_CAPS));

namespace {

// What the streaming thread owns between start and stop.
struct Runtime {
  FilterSettings settings;  // the copy the extractor was built from
  std::unique_ptr<gpusift::Extractor> extractor;
  gpusift::Features features;
  // The descriptor vectors that the metas take (see attach_meta).
  gpusift::gst::RecycledVectors<float> float_rows;
  gpusift::gst::RecycledVectors<uint8_t> byte_rows;
  GstVideoInfo info;
  bool cuda_memory_caps = false;
#ifdef GPUSIFT_HAVE_NVMM
  bool nvmm_caps = false;
#endif
  bool overflow_warned = false;
#ifdef GPUSIFT_HAVE_GST_CUDA
  gpusift::gst::DeviceDescriptorCopies device_copies;
#endif
  // Submitted to the extractor and not yet collected (two frames in flight only).
  gpusift::gst::FramesInFlight submitted;
  // max-frames-in-flight is settled at start, or for auto at the first buffer (it needs upstream's
  // liveness); frames_in_flight is then what the extractor makes of it, and 0 before.
  bool frames_in_flight_settled = false;
  bool upstream_live = false;
  std::atomic<int> frames_in_flight{0};  // read by latency queries from other threads
  bool input_discont = false;            // of the input being submitted
};

}  // namespace

struct _GstGpusiftFilter {
  GstBaseTransform parent;

  FilterSettings* settings;   // object lock
  gboolean settings_changed;  // object lock
  // A keypointtracker downstream asked for the descriptors in device memory too (object lock).
  gboolean device_descriptors_requested;
  Runtime* runtime;
#ifdef GPUSIFT_HAVE_GST_CUDA
  GstCudaContext* context;
#endif
};

G_DEFINE_TYPE(GstGpusiftFilter, gst_gpusift_filter, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE(gpusiftfilter, "gpusiftfilter", GST_RANK_NONE, GST_TYPE_GPUSIFT_FILTER);

namespace {

// Pushes the element's CUDA context for the scope (nothing for the CPU backend).
class ContextScope {
 public:
  explicit ContextScope(GstGpusiftFilter* self) {
#ifdef GPUSIFT_HAVE_GST_CUDA
    if (self->context && gst_cuda_context_push(self->context))
      pushed_ = true;
#else
    (void)self;
#endif
  }
  ~ContextScope() {
#ifdef GPUSIFT_HAVE_GST_CUDA
    if (pushed_)
      gst_cuda_context_pop(nullptr);
#endif
  }
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  bool pushed_ = false;
};

FilterSettings current_settings(GstGpusiftFilter* self) {
  GST_OBJECT_LOCK(self);
  const FilterSettings copy = *self->settings;
  self->settings_changed = FALSE;
  GST_OBJECT_UNLOCK(self);
  return copy;
}

#ifdef GPUSIFT_HAVE_GST_CUDA
bool open_cuda_context(GstGpusiftFilter* self, int device_id) {
  if (!gst_cuda_load_library())
    return false;
  return gst_cuda_ensure_element_context(GST_ELEMENT(self), device_id, &self->context);
}
#endif

// Resolves `auto`, opening the CUDA context when the GPU is used. False after posting an error.
bool choose_backend(GstGpusiftFilter* self, FilterSettings* settings) {
  if (settings->backend == Backend::kCpu)
    return true;
#ifdef GPUSIFT_HAVE_GST_CUDA
  if (open_cuda_context(self, settings->cuda_device_id)) {
    settings->backend = Backend::kCuda;
    return true;
  }
  const char* reason = "no usable CUDA device or driver";
#else
  // Without gstreamer-cuda (GStreamer 1.20) the library selects the device: no context sharing
  // and no CUDA-memory caps, but the same extraction.
  if (gpusift::gst::cuda_device_present(settings->cuda_device_id)) {
    settings->backend = Backend::kCuda;
    return true;
  }
  const char* reason = "no CUDA device (or the CUDA backend is not built) with that id";
#endif
  if (settings->backend == Backend::kCuda) {
    GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND, ("The CUDA backend is not available"),
                      ("%s (backend=cuda)", reason));
    return false;
  }
  GST_ELEMENT_WARNING(self, RESOURCE, NOT_FOUND, ("No GPU: running on the CPU backend"),
                      ("%s; backend=auto falls back to the CPU", reason));
  settings->backend = Backend::kCpu;
  return true;
}

void post_library_error(GstGpusiftFilter* self, const gpusift::Error& error) {
  switch (error.code()) {
    case gpusift::ErrorCode::kOutOfMemory:
      GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, ("Out of memory extracting features"),
                        ("%s", error.what()));
      break;
    case gpusift::ErrorCode::kNoDevice:
      GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND, ("No usable CUDA device"), ("%s", error.what()));
      break;
    case gpusift::ErrorCode::kDeviceFailure:
      GST_ELEMENT_ERROR(self, RESOURCE, FAILED, ("CUDA failure"), ("%s", error.what()));
      break;
    case gpusift::ErrorCode::kInvalidArgument:
      GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("Invalid feature extraction settings or frame"),
                        ("%s", error.what()));
      break;
    case gpusift::ErrorCode::kFrameTooLarge:
      GST_ELEMENT_ERROR(self, STREAM, FORMAT, ("Frame too large for feature extraction"),
                        ("%s", error.what()));
      break;
  }
}

// (Re)creates the extractor for runtime->settings. False after posting an error.
bool build_extractor(GstGpusiftFilter* self) {
  Runtime& rt = *self->runtime;
  ContextScope scope(self);
  try {
    rt.extractor.reset();
    rt.extractor = rt.settings.backend == Backend::kCuda
                       ? gpusift::gst::create_element_cuda_extractor(rt.settings.features,
                                                                     rt.settings.cuda_device_id)
                       : gpusift::create_extractor(Backend::kCpu, rt.settings.features);
    rt.extractor->set_host_frame_access(rt.settings.host_frame_access);
  } catch (const gpusift::Error& error) {
    post_library_error(self, error);
    return false;
  }
  GST_INFO_OBJECT(self, "frames in system memory are %s",
                  rt.extractor->reads_host_frames_in_place() ? "read in place" : "uploaded");
  return true;
}

// Device pointers are only usable when the buffer's CUDA memory lives in our context.
bool can_read_on_device(GstGpusiftFilter* self, GstBuffer* buffer) {
#ifdef GPUSIFT_HAVE_GST_CUDA
  const Runtime& rt = *self->runtime;
  if (!rt.cuda_memory_caps || rt.settings.backend != Backend::kCuda)
    return false;
  GstMemory* memory = gst_buffer_peek_memory(buffer, 0);
  return gst_is_cuda_memory(memory) && GST_CUDA_MEMORY_CAST(memory)->context == self->context;
#else
  (void)self;
  (void)buffer;
  return false;
#endif
}

// The meta takes the features' descriptor vector itself, and the features a vector that an
// earlier meta gave back: at 1080p a frame's float descriptors are about 0.8 MB (a SURF frame's
// over 2 MB), which a copy would move once more on the streaming thread.
template <typename T>
GBytes* hand_over(std::vector<T>* rows, gpusift::gst::RecycledVectors<T>* recycled) {
  GBytes* bytes = recycled->wrap(std::move(*rows));
  *rows = recycled->take();
  return bytes;
}

void attach_meta(GstGpusiftFilter* self, GstBuffer* buffer) {
  Runtime& rt = *self->runtime;
  gpusift::Features& f = rt.features;
  GBytes* keypoints =
      g_bytes_new(f.keypoints.data(), f.keypoints.size() * sizeof(gpusift::Keypoint));
  GBytes* descriptors = nullptr;
  GstKeypointsDescriptorType type = GST_KEYPOINTS_DESCRIPTOR_NONE;
  if (f.descriptor_format == gpusift::DescriptorFormat::kUint8) {
    type = GST_KEYPOINTS_DESCRIPTOR_UINT8;
    descriptors = hand_over(&f.byte_descriptors, &rt.byte_rows);
  } else if (f.descriptor_size > 0) {
    type = GST_KEYPOINTS_DESCRIPTOR_FLOAT32;
    descriptors = hand_over(&f.float_descriptors, &rt.float_rows);
  }
  const GstKeypointsMethod method = rt.settings.features.method == gpusift::Method::kSurf
                                        ? GST_KEYPOINTS_METHOD_SURF
                                        : GST_KEYPOINTS_METHOD_SIFT;
  gst_buffer_add_keypoints_meta_from_bytes(buffer, method, GST_VIDEO_INFO_WIDTH(&rt.info),
                                           GST_VIDEO_INFO_HEIGHT(&rt.info), keypoints, type,
                                           f.descriptor_size, descriptors);
  g_bytes_unref(keypoints);
  if (descriptors)
    g_bytes_unref(descriptors);
}

void post_frame_message(GstGpusiftFilter* self, GstBuffer* buffer, gint64 elapsed_us) {
  GstBaseTransform* trans = GST_BASE_TRANSFORM(self);
  const GstClockTime pts = GST_BUFFER_PTS(buffer);
  const GstClockTime running_time =
      gst_segment_to_running_time(&trans->segment, GST_FORMAT_TIME, pts);
  GstStructure* s = gst_structure_new(
      "gpusiftfilter", "timestamp", G_TYPE_UINT64, pts, "running-time", G_TYPE_UINT64, running_time,
      "n-keypoints", G_TYPE_UINT, static_cast<guint>(self->runtime->features.keypoints.size()),
      "processing-time-us", G_TYPE_UINT64, static_cast<guint64>(elapsed_us), nullptr);
  gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), s));
}

// Only when asked: the device-to-device copy costs a little GPU time and memory per frame.
void attach_device_descriptors(GstGpusiftFilter* self, GstBuffer* buffer) {
#ifdef GPUSIFT_HAVE_GST_CUDA
  Runtime& rt = *self->runtime;
  GST_OBJECT_LOCK(self);
  const bool requested = self->device_descriptors_requested;
  GST_OBJECT_UNLOCK(self);
  gpusift::DeviceFeatures device;
  if (!requested || !self->context || !rt.extractor->device_features(&device))
    return;
  ContextScope scope(self);
  if (!rt.device_copies.attach(self->context, device, buffer))
    GST_LOG_OBJECT(self, "no device copy of this frame's descriptors");
#else
  (void)self;
  (void)buffer;
#endif
}

void warn_overflow_once(GstGpusiftFilter* self) {
  Runtime& rt = *self->runtime;
  if (!rt.features.overflowed || rt.overflow_warned)
    return;
  rt.overflow_warned = true;
  GST_ELEMENT_WARNING(
      self, STREAM, FAILED, ("Too many keypoints: the strongest are kept"),
      ("%d detected, %zu kept (max-keypoints=%d); warned once per stream",
       rt.features.detected_count, rt.features.keypoints.size(), rt.settings.max_keypoints()));
}

// The features just extracted or collected (rt.features) onto the frame's buffer.
void attach_results(GstGpusiftFilter* self, GstBuffer* buffer, gint64 elapsed_us) {
  const Runtime& rt = *self->runtime;
  attach_meta(self, buffer);
  attach_device_descriptors(self, buffer);
  warn_overflow_once(self);
  GST_LOG_OBJECT(self, "%zu keypoints in %" G_GINT64_FORMAT " us", rt.features.keypoints.size(),
                 elapsed_us);
  GST_OBJECT_LOCK(self);
  const bool post = self->settings->post_messages;
  GST_OBJECT_UNLOCK(self);
  if (post)
    post_frame_message(self, buffer, elapsed_us);
}

// As many as the extractor takes of what max-frames-in-flight asks for, once that is settled.
void update_frames_in_flight(GstGpusiftFilter* self) {
  Runtime& rt = *self->runtime;
  if (!rt.frames_in_flight_settled || !rt.extractor)
    return;
  const int before = rt.frames_in_flight;
  rt.frames_in_flight = gpusift::gst::filter_frames_in_flight(
      rt.settings.max_frames_in_flight, rt.extractor->max_in_flight(), rt.upstream_live);
  if (rt.frames_in_flight == before)
    return;
  GST_INFO_OBJECT(self, "%d frame(s) in flight", rt.frames_in_flight.load());
  // A new method mid-stream can change the latency that the pipeline was told.
  if (before != 0)
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_latency(GST_OBJECT(self)));
}

// Explicit values are settled at start, auto at the stream's first buffer (it needs upstream's
// liveness); both are kept until stop.
void settle_frames_in_flight(GstGpusiftFilter* self, bool first_buffer) {
  Runtime& rt = *self->runtime;
  if (rt.frames_in_flight_settled || (rt.settings.max_frames_in_flight == 0 && !first_buffer))
    return;
  rt.upstream_live = rt.settings.max_frames_in_flight == 0 &&
                     gpusift::gst::upstream_is_live(GST_BASE_TRANSFORM(self));
  rt.frames_in_flight_settled = true;
  update_frames_in_flight(self);
}

// The oldest frame in flight, its features attached, as *out. After an error no frame is left in
// flight (the extractor drops them all).
GstFlowReturn collect_oldest(GstGpusiftFilter* self, GstBuffer** out) {
  Runtime& rt = *self->runtime;
  const gint64 start_us = g_get_monotonic_time();
  try {
    ContextScope scope(self);
    rt.extractor->collect(&rt.features);
  } catch (const gpusift::Error& error) {
    rt.submitted.drop_all();
    post_library_error(self, error);
    return GST_FLOW_ERROR;
  }
  gint64 submit_us = 0;
  *out = rt.submitted.release_oldest(&submit_us);
  // The frame's own time on the streaming thread, not the frames upstream made meanwhile.
  attach_results(self, *out, submit_us + g_get_monotonic_time() - start_us);
  return GST_FLOW_OK;
}

// A flush or stop: the frames in flight are dropped once the device no longer reads them.
void drop_frames_in_flight(GstGpusiftFilter* self) {
  Runtime& rt = *self->runtime;
  if (rt.submitted.empty())
    return;
  try {
    ContextScope scope(self);
    if (rt.extractor)
      rt.extractor->cancel();
  } catch (const gpusift::Error& error) {
    GST_WARNING_OBJECT(self, "dropping the frames in flight: %s", error.what());
  }
  rt.submitted.drop_all();
}

// Every frame in flight leaves now, oldest first.
GstFlowReturn push_frames_in_flight(GstGpusiftFilter* self) {
  Runtime& rt = *self->runtime;
  while (!rt.submitted.empty()) {
    GstBuffer* buffer = nullptr;
    GstFlowReturn ret = collect_oldest(self, &buffer);
    if (ret == GST_FLOW_OK)
      ret = gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(self), buffer);
    if (ret != GST_FLOW_OK) {
      drop_frames_in_flight(self);
      return ret;
    }
  }
  return GST_FLOW_OK;
}

// A failed submit takes the frames in flight before it down too (extractor.h). Their pixels are
// still mapped, so each runs again alone and leaves before the error is posted.
void rerun_frames_in_flight(GstGpusiftFilter* self) {
  Runtime& rt = *self->runtime;
  while (!rt.submitted.empty()) {
    const gint64 start_us = g_get_monotonic_time();
    try {
      ContextScope scope(self);
      rt.extractor->extract(rt.submitted.oldest_view(), &rt.features);
    } catch (const gpusift::Error& error) {
      GST_WARNING_OBJECT(self, "a frame before the failing one failed again: %s", error.what());
      break;
    }
    gint64 submit_us = 0;
    GstBuffer* buffer = rt.submitted.release_oldest(&submit_us);
    attach_results(self, buffer, g_get_monotonic_time() - start_us);
    if (gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(self), buffer) != GST_FLOW_OK)
      break;
  }
  rt.submitted.drop_all();
}

// A new extractor when the settings changed, after the frames in flight on the old one have left.
// No extractor: the last settings were refused (an error was posted); they are tried again.
GstFlowReturn ensure_extractor(GstGpusiftFilter* self) {
  Runtime& rt = *self->runtime;
  GST_OBJECT_LOCK(self);
  const bool changed = self->settings_changed;
  GST_OBJECT_UNLOCK(self);
  if (!changed && rt.extractor)
    return GST_FLOW_OK;
  const GstFlowReturn ret = push_frames_in_flight(self);
  if (ret != GST_FLOW_OK)
    return ret;
  const FilterSettings kept = rt.settings;  // fixed while running
  rt.settings = current_settings(self);
  rt.settings.backend = kept.backend;
  rt.settings.cuda_device_id = kept.cuda_device_id;
  rt.settings.max_frames_in_flight = kept.max_frames_in_flight;
  rt.settings.host_frame_access = kept.host_frame_access;
  if (!build_extractor(self))
    return GST_FLOW_ERROR;
  update_frames_in_flight(self);
  return GST_FLOW_OK;
}

// The input's pixels as the extractor reads them: a mapped GstVideoFrame, or with memory:NVMM
// caps an NvmmFrame.
struct InputMapping {
  GstVideoFrame video;
#ifdef GPUSIFT_HAVE_NVMM
  std::unique_ptr<gpusift::gst::NvmmFrame> nvmm;  // instead of `video` when set
#endif
};

#ifdef GPUSIFT_HAVE_NVMM
// Read on the element's CUDA context or device: the CPU backend cannot (NvmmFrame::map says so).
GstFlowReturn map_nvmm_frame(GstGpusiftFilter* self, GstBuffer* buffer, InputMapping* mapping,
                             gpusift::FrameView* view) {
  const Runtime& rt = *self->runtime;
#ifdef GPUSIFT_HAVE_GST_CUDA
  const gpusift::gst::NvmmCudaTarget target{self->context, rt.settings.cuda_device_id};
#else
  const gpusift::gst::NvmmCudaTarget target{nullptr, rt.settings.cuda_device_id};
#endif
  auto frame = std::make_unique<gpusift::gst::NvmmFrame>();
  const std::string problem =
      frame->map(rt.settings.backend == Backend::kCuda ? &target : nullptr, buffer, rt.info, view);
  if (!problem.empty()) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Cannot read the memory:NVMM frame"),
                      ("%s", problem.c_str()));
    return GST_FLOW_ERROR;
  }
  mapping->nvmm = std::move(frame);
  return GST_FLOW_OK;
}
#endif

// GST_FLOW_OK with `mapping` to unmap once the extractor no longer reads `view`; otherwise an
// error was posted and nothing is mapped.
GstFlowReturn map_input(GstGpusiftFilter* self, GstBuffer* buffer, InputMapping* mapping,
                        gpusift::FrameView* view) {
#ifdef GPUSIFT_HAVE_NVMM
  if (self->runtime->nvmm_caps)
    return map_nvmm_frame(self, buffer, mapping, view);
#endif
  return gpusift::gst::map_extractor_frame(GST_ELEMENT(self), buffer, self->runtime->info,
                                           can_read_on_device(self, buffer), &mapping->video, view);
}

void unmap_input(InputMapping* mapping) {
#ifdef GPUSIFT_HAVE_NVMM
  if (mapping->nvmm) {
    mapping->nvmm.reset();
    return;
  }
#endif
  gst_video_frame_unmap(&mapping->video);
}

// The mapping goes with the buffer into frames in flight.
void hold_input(gpusift::gst::FramesInFlight* submitted, GstBuffer* buffer, InputMapping* mapping,
                const gpusift::FrameView& view, gint64 submit_us) {
#ifdef GPUSIFT_HAVE_NVMM
  if (mapping->nvmm) {
    submitted->hold(buffer, std::move(mapping->nvmm), view, submit_us);
    return;
  }
#endif
  submitted->hold(buffer, mapping->video, view, submit_us);
}

// One frame in flight: extracted and attached before the buffer leaves.
GstFlowReturn extract_in_place(GstGpusiftFilter* self, GstBuffer* buffer) {
  Runtime& rt = *self->runtime;
  InputMapping frame;
  gpusift::FrameView view;
  const GstFlowReturn ret = map_input(self, buffer, &frame, &view);
  if (ret != GST_FLOW_OK)
    return ret;
  const gint64 start_us = g_get_monotonic_time();
  try {
    ContextScope scope(self);
    rt.extractor->extract(view, &rt.features);
  } catch (const gpusift::Error& error) {
    unmap_input(&frame);
    post_library_error(self, error);
    return GST_FLOW_ERROR;
  }
  const gint64 elapsed_us = g_get_monotonic_time() - start_us;
  unmap_input(&frame);
  attach_results(self, buffer, elapsed_us);
  return GST_FLOW_OK;
}

// Two frames in flight: the input is submitted, then the frame before it is collected and leaves
// as *outbuf (the stream's first frame only goes in). The input is the outgoing buffer itself,
// made writable before it is mapped so that the pixels the extractor reads stay in it.
GstFlowReturn submit_then_collect(GstGpusiftFilter* self, GstBuffer* input, GstBuffer** outbuf) {
  Runtime& rt = *self->runtime;
  // The base class marks its next outgoing buffer DISCONT: that must be the input, not a frame
  // from before the discontinuity.
  GstFlowReturn ret = rt.input_discont ? push_frames_in_flight(self) : GST_FLOW_OK;
  if (ret == GST_FLOW_OK)
    ret = ensure_extractor(self);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref(input);
    return ret;
  }
  GstBuffer* buffer = gst_buffer_make_writable(input);
  if (rt.frames_in_flight < 2) {
    // The settings changed to an extractor of one frame in flight (none is left in flight now).
    ret = extract_in_place(self, buffer);
    if (ret != GST_FLOW_OK) {
      gst_buffer_unref(buffer);
      return ret;
    }
    *outbuf = buffer;
    return GST_FLOW_OK;
  }
  InputMapping mapping;
  gpusift::FrameView view;
  ret = map_input(self, buffer, &mapping, &view);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref(buffer);
    push_frames_in_flight(self);  // the frames before a bad one still leave
    return ret;
  }
  const gint64 start_us = g_get_monotonic_time();
  try {
    ContextScope scope(self);
    rt.extractor->submit(view);
  } catch (const gpusift::Error& error) {
    unmap_input(&mapping);
    gst_buffer_unref(buffer);
    rerun_frames_in_flight(self);
    post_library_error(self, error);
    return GST_FLOW_ERROR;
  }
  hold_input(&rt.submitted, buffer, &mapping, view, g_get_monotonic_time() - start_us);
  if (rt.submitted.size() < 2)
    return GST_FLOW_OK;
  return collect_oldest(self, outbuf);
}

void release_runtime(GstGpusiftFilter* self) {
  Runtime& rt = *self->runtime;
  drop_frames_in_flight(self);
  rt.frames_in_flight_settled = false;
  rt.frames_in_flight = 0;
  {
    ContextScope scope(self);  // device buffers are freed in the context they belong to
    rt.extractor.reset();
  }
  rt.features = gpusift::Features{};
#ifdef GPUSIFT_HAVE_GST_CUDA
  rt.device_copies.release();
  gst_clear_object(&self->context);
#endif
  GST_OBJECT_LOCK(self);
  self->device_descriptors_requested = FALSE;  // asked for again by the next stream's tracker
  GST_OBJECT_UNLOCK(self);
}

}  // namespace

static gboolean gst_gpusift_filter_start(GstBaseTransform* trans) {
  GstGpusiftFilter* self = GST_GPUSIFT_FILTER(trans);
  Runtime& rt = *self->runtime;
  rt.settings = current_settings(self);
  rt.overflow_warned = false;
  rt.input_discont = false;
  if (!choose_backend(self, &rt.settings))
    return FALSE;
  GST_INFO_OBJECT(self, "%s on backend %s", gpusift::method_name(rt.settings.features.method),
                  gpusift::backend_name(rt.settings.backend));
  if (build_extractor(self)) {
    settle_frames_in_flight(self, false);
    return TRUE;
  }
  // A failed start gets no stop(), so the CUDA context would stay held until the next start.
  release_runtime(self);
  return FALSE;
}

static gboolean gst_gpusift_filter_stop(GstBaseTransform* trans) {
  release_runtime(GST_GPUSIFT_FILTER(trans));
  return TRUE;
}

static gboolean gst_gpusift_filter_set_caps(GstBaseTransform* trans, GstCaps* incaps,
                                            GstCaps* outcaps) {
  (void)outcaps;
  GstGpusiftFilter* self = GST_GPUSIFT_FILTER(trans);
  Runtime& rt = *self->runtime;
  if (!gst_video_info_from_caps(&rt.info, incaps)) {
    GST_ELEMENT_ERROR(self, STREAM, FORMAT, ("Invalid video caps"),
                      ("%" GST_PTR_FORMAT, static_cast<void*>(incaps)));
    return FALSE;
  }
  const int width = GST_VIDEO_INFO_WIDTH(&rt.info), height = GST_VIDEO_INFO_HEIGHT(&rt.info);
  if (width > gpusift::kMaxFrameSide || height > gpusift::kMaxFrameSide) {
    GST_ELEMENT_ERROR(self, STREAM, FORMAT, ("Frame too large for feature extraction"),
                      ("%dx%d is larger than %dx%d", width, height, gpusift::kMaxFrameSide,
                       gpusift::kMaxFrameSide));
    return FALSE;
  }
  GstCapsFeatures* features = gst_caps_get_features(incaps, 0);
  rt.cuda_memory_caps = features && gst_caps_features_contains(features, "memory:CUDAMemory");
#ifdef GPUSIFT_HAVE_NVMM
  rt.nvmm_caps = features && gst_caps_features_contains(features, GPUSIFT_CAPS_FEATURE_MEMORY_NVMM);
#endif
  GST_DEBUG_OBJECT(self, "caps %" GST_PTR_FORMAT, static_cast<void*>(incaps));
  return TRUE;
}

static gboolean gst_gpusift_filter_sink_event(GstBaseTransform* trans, GstEvent* event) {
  GstGpusiftFilter* self = GST_GPUSIFT_FILTER(trans);
  // Frames in flight leave before any event that follows them in the stream (EOS, caps, segment,
  // gap); a flush drops them.
  if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP) {
    drop_frames_in_flight(self);
  } else if (GST_EVENT_IS_SERIALIZED(event) && !self->runtime->submitted.empty()) {
    const GstFlowReturn ret = push_frames_in_flight(self);
    if (ret != GST_FLOW_OK)
      GST_DEBUG_OBJECT(self, "the frames in flight before %s: %s", GST_EVENT_TYPE_NAME(event),
                       gst_flow_get_name(ret));
  }
  return GST_BASE_TRANSFORM_CLASS(gst_gpusift_filter_parent_class)->sink_event(trans, event);
}

static GstFlowReturn gst_gpusift_filter_transform_ip(GstBaseTransform* trans, GstBuffer* buffer) {
  GstGpusiftFilter* self = GST_GPUSIFT_FILTER(trans);
  const GstFlowReturn ret = ensure_extractor(self);
  if (ret != GST_FLOW_OK)
    return ret;
  return extract_in_place(self, buffer);
}

static GstFlowReturn gst_gpusift_filter_submit_input_buffer(GstBaseTransform* trans,
                                                            gboolean is_discont, GstBuffer* input) {
  GST_GPUSIFT_FILTER(trans)->runtime->input_discont = is_discont || GST_BUFFER_IS_DISCONT(input);
  return GST_BASE_TRANSFORM_CLASS(gst_gpusift_filter_parent_class)
      ->submit_input_buffer(trans, is_discont, input);
}

// The base class's submit_input_buffer has checked the input (negotiation, QoS) and queued it.
static GstFlowReturn gst_gpusift_filter_generate_output(GstBaseTransform* trans,
                                                        GstBuffer** outbuf) {
  GstGpusiftFilter* self = GST_GPUSIFT_FILTER(trans);
  Runtime& rt = *self->runtime;
  if (trans->queued_buf)
    settle_frames_in_flight(self, true);
  if (rt.frames_in_flight < 2 && rt.submitted.empty())
    return GST_BASE_TRANSFORM_CLASS(gst_gpusift_filter_parent_class)
        ->generate_output(trans, outbuf);
  *outbuf = nullptr;
  GstBuffer* input = std::exchange(trans->queued_buf, nullptr);
  if (!input)
    return GST_FLOW_OK;
  return submit_then_collect(self, input, outbuf);
}

static void gst_gpusift_filter_set_context(GstElement* element, GstContext* context) {
#ifdef GPUSIFT_HAVE_GST_CUDA
  GstGpusiftFilter* self = GST_GPUSIFT_FILTER(element);
  GST_OBJECT_LOCK(self);
  const int device_id = self->settings->cuda_device_id;
  GST_OBJECT_UNLOCK(self);
  gst_cuda_handle_set_context(element, context, device_id, &self->context);
#endif
  GST_ELEMENT_CLASS(gst_gpusift_filter_parent_class)->set_context(element, context);
}

#ifdef GPUSIFT_HAVE_GST_CUDA
// Frames of these caps are not in system memory, so a pool of pinned memory is no use to them.
static bool in_device_memory(GstCaps* caps) {
  GstCapsFeatures* features = gst_caps_get_features(caps, 0);
#ifdef GPUSIFT_HAVE_NVMM
  if (gst_caps_features_contains(features, GPUSIFT_CAPS_FEATURE_MEMORY_NVMM))
    return true;
#endif
  return gst_caps_features_contains(features, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
}
#endif

// On the GPU, frames in system memory are best in pinned memory, which is uploaded without a
// copy into staging: offered upstream when nothing downstream offered a pool of its own.
static gboolean gst_gpusift_filter_propose_allocation(GstBaseTransform* trans,
                                                      GstQuery* decide_query, GstQuery* query) {
  // Downstream's answer (a sink may have none): the pool below does not depend on it.
  const gboolean answered = GST_BASE_TRANSFORM_CLASS(gst_gpusift_filter_parent_class)
                                ->propose_allocation(trans, decide_query, query);
#ifdef GPUSIFT_HAVE_GST_CUDA
  GstGpusiftFilter* self = GST_GPUSIFT_FILTER(trans);
  GstCaps* caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  GstVideoInfo info;
  if (!self->context || self->runtime->settings.backend != Backend::kCuda || !caps ||
      in_device_memory(caps) || !gst_video_info_from_caps(&info, caps))
    return answered;
  if (gst_query_get_n_allocation_pools(query) > 0) {
    GST_DEBUG_OBJECT(self, "downstream offered a pool: no pinned pool");
    return answered;
  }
  // The allocator goes in too: upstream elements that configure the pool themselves (basesrc
  // subclasses) take the query's first allocator for it.
  GstAllocator* allocator = gpusift::gst::pinned_host_allocator_new(self->context);
  GstBufferPool* pool = gpusift::gst::pinned_host_video_pool_new(allocator, info);
  if (!pool) {
    gst_object_unref(allocator);
    return answered;
  }
  GstAllocationParams params;
  gst_allocation_params_init(&params);
  gst_query_add_allocation_param(query, allocator, &params);
  gst_query_add_allocation_pool(query, pool, static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)), 0, 0);
  gst_object_unref(pool);
  gst_object_unref(allocator);
  if (!gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr))
    gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
  GST_DEBUG_OBJECT(self, "offered a pool of pinned memory upstream");
  return TRUE;
#else
  return answered;
#endif
}

static gboolean gst_gpusift_filter_query(GstBaseTransform* trans, GstPadDirection direction,
                                         GstQuery* query) {
  GstGpusiftFilter* self = GST_GPUSIFT_FILTER(trans);
#ifdef GPUSIFT_HAVE_GST_CUDA
  if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT &&
      gst_cuda_handle_context_query(GST_ELEMENT(self), query, self->context))
    return TRUE;
#endif
  // Downstream (keypointmatcher) asks how this stream's features are made.
  if (direction == GST_PAD_SRC && gpusift::gst::is_feature_settings_query(query)) {
    GST_OBJECT_LOCK(self);
    const gpusift::FeatureConfig config = self->settings->features;
    GST_OBJECT_UNLOCK(self);
    gpusift::gst::answer_feature_settings_query(query, config);
    return TRUE;
  }
  // Upstream draining its buffers (a drain query, or an allocation query before a new pool) gets
  // back the ones in flight, which leave first as they would before an event.
  if (direction == GST_PAD_SINK && GST_QUERY_IS_SERIALIZED(query) &&
      !self->runtime->submitted.empty()) {
    const GstFlowReturn ret = push_frames_in_flight(self);
    if (ret != GST_FLOW_OK)
      GST_DEBUG_OBJECT(self, "the frames in flight before %s: %s", GST_QUERY_TYPE_NAME(query),
                       gst_flow_get_name(ret));
  }
  const gboolean answered =
      GST_BASE_TRANSFORM_CLASS(gst_gpusift_filter_parent_class)->query(trans, direction, query);
  // With two frames in flight a frame leaves one frame later: that much more latency.
  if (answered && GST_QUERY_TYPE(query) == GST_QUERY_LATENCY && direction == GST_PAD_SRC &&
      self->runtime->frames_in_flight > 1 && !gpusift::gst::add_frame_of_latency(trans, query))
    GST_DEBUG_OBJECT(self, "frame rate unknown: no latency added for the frame in flight");
  return answered;
}

static gboolean gst_gpusift_filter_src_event(GstBaseTransform* trans, GstEvent* event) {
  GstGpusiftFilter* self = GST_GPUSIFT_FILTER(trans);
  if (gst_keypoints_device_request_is(event)) {
    GST_DEBUG_OBJECT(self, "downstream asks for the descriptors in device memory");
    GST_OBJECT_LOCK(self);
    self->device_descriptors_requested = TRUE;
    GST_OBJECT_UNLOCK(self);
    gst_event_unref(event);
    return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS(gst_gpusift_filter_parent_class)->src_event(trans, event);
}

static void gst_gpusift_filter_set_property(GObject* object, guint id, const GValue* value,
                                            GParamSpec* pspec) {
  GstGpusiftFilter* self = GST_GPUSIFT_FILTER(object);
  if (id < gpusift::gst::kPropMethod || id > gpusift::gst::kPropPostMessages) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    return;
  }
  GST_OBJECT_LOCK(self);
  if (gpusift::gst::set_filter_property(self->settings, id, value))
    self->settings_changed = TRUE;
  GST_OBJECT_UNLOCK(self);
}

static void gst_gpusift_filter_get_property(GObject* object, guint id, GValue* value,
                                            GParamSpec* pspec) {
  GstGpusiftFilter* self = GST_GPUSIFT_FILTER(object);
  if (id < gpusift::gst::kPropMethod || id > gpusift::gst::kPropPostMessages) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    return;
  }
  GST_OBJECT_LOCK(self);
  gpusift::gst::get_filter_property(*self->settings, id, value);
  GST_OBJECT_UNLOCK(self);
}

static void gst_gpusift_filter_finalize(GObject* object) {
  GstGpusiftFilter* self = GST_GPUSIFT_FILTER(object);
  delete self->runtime;
  delete self->settings;
  G_OBJECT_CLASS(gst_gpusift_filter_parent_class)->finalize(object);
}

static void gst_gpusift_filter_class_init(GstGpusiftFilterClass* klass) {
  GObjectClass* gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);

  gobject_class->set_property = gst_gpusift_filter_set_property;
  gobject_class->get_property = gst_gpusift_filter_get_property;
  gobject_class->finalize = gst_gpusift_filter_finalize;
  gpusift::gst::install_filter_properties(gobject_class);

  gst_element_class_set_static_metadata(
      element_class, "SIFT and SURF feature extractor", "Filter/Analyzer/Video",
      "Detects SIFT or SURF keypoints and descriptors on NVIDIA GPUs (or the CPU) and attaches "
      "them to each buffer as GstKeypointsMeta",
      "gpusift developers");
  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  element_class->set_context = GST_DEBUG_FUNCPTR(gst_gpusift_filter_set_context);

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;
  trans_class->start = GST_DEBUG_FUNCPTR(gst_gpusift_filter_start);
  trans_class->stop = GST_DEBUG_FUNCPTR(gst_gpusift_filter_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR(gst_gpusift_filter_set_caps);
  trans_class->sink_event = GST_DEBUG_FUNCPTR(gst_gpusift_filter_sink_event);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR(gst_gpusift_filter_transform_ip);
  trans_class->submit_input_buffer = GST_DEBUG_FUNCPTR(gst_gpusift_filter_submit_input_buffer);
  trans_class->generate_output = GST_DEBUG_FUNCPTR(gst_gpusift_filter_generate_output);
  trans_class->query = GST_DEBUG_FUNCPTR(gst_gpusift_filter_query);
  trans_class->propose_allocation = GST_DEBUG_FUNCPTR(gst_gpusift_filter_propose_allocation);
  trans_class->src_event = GST_DEBUG_FUNCPTR(gst_gpusift_filter_src_event);

  GST_DEBUG_CATEGORY_INIT(gst_gpusift_filter_debug, "gpusiftfilter", 0, "gpusiftfilter");
#ifdef GPUSIFT_HAVE_GST_CUDA
  gst_cuda_memory_init_once();
#endif
}

static void gst_gpusift_filter_init(GstGpusiftFilter* self) {
  self->settings = new FilterSettings();
  self->settings_changed = FALSE;
  self->device_descriptors_requested = FALSE;
  self->runtime = new Runtime();
#ifdef GPUSIFT_HAVE_GST_CUDA
  self->context = nullptr;
#endif
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
}
