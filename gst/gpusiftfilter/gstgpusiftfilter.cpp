// SPDX-License-Identifier: LGPL-2.1-or-later
/* gpusiftfilter: runs the SIFT or SURF pipeline on every frame and attaches the features as a
 * GstKeypointsMeta. Pixels are never modified; the buffer is only made metadata-writable (a
 * shallow copy when it is shared), so the element works in place with no pixel copies. With two
 * frames in flight each frame is submitted to the extractor and leaves when the next one has been
 * submitted, so that the GPU works while the streaming thread goes upstream. */
#include "gstgpusiftfilter.h"

#include <gst/keypoints/gstkeypointsmeta.h>
#if defined(GPUSIFT_HAVE_GST_TENSORS) && GST_CHECK_VERSION(1, 26, 0)
#include <gst/keypoints/gstkeypointstensors.h>
#endif
#include <gst/video/video.h>

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/element_cuda_objects.h"
#include "base/feature_settings_query.h"
#include "base/keypoint_layout.h"
#include "extractor_frame.h"
#include "filter_settings.h"
#include "gpusift/error.h"
#include "gpusift/extractor.h"
#include "gpusift/keypoint.h"
#include "keypoints/gstkeypointsdevicemeta.h"
#include "mapped_frames.h"
#include "recycled_vectors.h"

#ifdef GPUSIFT_HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>

#include "device_descriptor_copy.h"
#include "pinned_host_pool.h"
#endif

#ifdef GPUSIFT_HAVE_NVMM
#include "nvmm_frame.h"
#endif

/**
 * SECTION:element-gpusiftfilter
 * @title: gpusiftfilter
 *
 * gpusiftfilter detects SIFT keypoints (or SURF ones, with method=surf) in every video frame and
 * computes their descriptors, on an NVIDIA GPU through CUDA or on the CPU. The pixels pass
 * unchanged: the element works in place and only makes the buffer's metadata writable. To each
 * buffer it adds:
 *
 * * a #GstKeypointsMeta with the frame's keypoints (x, y, size, angle, response, octave) in the
 *   frame's coordinates and, unless descriptor=none, one descriptor row per keypoint (float32,
 *   uint8 or RootSIFT, as #GstGpusiftFilter:descriptor says);
 * * when a keypointtracker on the CUDA backend downstream asks for it (with an upstream event),
 *   a copy of those descriptors in device memory of the shared CUDA context (a
 *   GstKeypointsDeviceMeta, private to the plugin), so that they reach the tracker without a trip
 *   through the host. Nobody asking, no copy is made.
 *
 * With #GstGpusiftFilter:post-messages set, it also posts a "gpusiftfilter" element message for
 * every frame, with timestamp, running-time, n-keypoints and processing-time-us. When a frame has
 * more keypoints than #GstGpusiftFilter:max-keypoints, the strongest are kept and one warning per
 * stream is posted.
 *
 * Upstream provides raw video: GRAY8, NV12, NV21, I420, YV12, Y42B, Y444, RGBA, BGRA, RGBx, BGRx,
 * RGB or BGR in system memory, or NV12 or I420 in CUDA memory (memory:CUDAMemory, from nvh264dec
 * or cudaupload for instance), which the CUDA backend reads where it is. Built with
 * -Dnvmm=enabled on a Jetson, it also takes NV12, RGBA and GRAY8 in memory:NVMM. YUV frames are
 * read through their luma plane; RGB frames are converted to grey. Limited-range frames (as the
 * caps' colorimetry says; YUV caps without one are) are brought to full range first, so that a
 * picture gives the same features in every format. keypointtracker,
 * keypointmatcher, keypointoverlay and keypointfilesink come after it and read the meta;
 * applications read it with gst_buffer_get_keypoints_meta().
 *
 * #GstGpusiftFilter:backend says where the features are computed: cuda (an error without a
 * usable GPU), cpu, or auto, which takes the GPU when one is usable and otherwise falls back to
 * the CPU with a warning. On the GPU the element shares its GstCudaContext with its neighbours
 * (nvh264dec, cudaupload, keypointtracker, keypointmatcher). With SIFT on the CUDA backend after
 * a source that is not live, it keeps two frames in flight by default, so that the GPU works on a
 * frame while upstream makes the next one and each frame leaves one frame later
 * (#GstGpusiftFilter:max-frames-in-flight).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -m videotestsrc num-buffers=30 pattern=ball ! \
 *     video/x-raw,format=NV12,width=640,height=480 ! gpusiftfilter post-messages=true ! fakesink
 * ]|
 * Extracts SIFT features from 30 frames of a moving test pattern and prints each frame's
 * "gpusiftfilter" message (number of keypoints, processing time).
 *
 * |[
 * gst-launch-1.0 -e filesrc location=in.mp4 ! qtdemux ! h264parse ! nvh264dec ! \
 *     "video/x-raw(memory:CUDAMemory)" ! gpusiftfilter backend=cuda ! cudadownload ! \
 *     keypointoverlay ! videoconvert ! x264enc ! mp4mux ! filesink location=keypoints.mp4
 * ]|
 * Decodes H.264 with NVDEC into CUDA memory, where gpusiftfilter reads the frames without a host
 * copy; they are downloaded only for keypointoverlay to draw the keypoints into keypoints.mp4.
 *
 * Since: 0.1
 */

GST_DEBUG_CATEGORY_STATIC(gst_gpusift_filter_debug);
#define GST_CAT_DEFAULT gst_gpusift_filter_debug

using gpusift::Backend;
using gpusift::gst::FilterSettings;
using gpusift::gst::keypoint_base_post_error;

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
  // The pixels of the frames submitted to the extractor and not yet collected, in the order of
  // the buffers the base class holds.
  gpusift::gst::MappedFrames submitted;
};

// gpusiftfilter's own work behind the base class: its settings and what it does with a frame.
class FilterWork final : public gpusift::gst::KeypointElementWork {
 public:
  using KeypointElementWork::KeypointElementWork;
  void set_property(guint id, const GValue* value) override {
    if (gpusift::gst::set_filter_property(&settings, id, value))
      settings_changed = TRUE;
  }
  void get_property(guint id, GValue* value) const override {
    gpusift::gst::get_filter_property(settings, id, value);
  }
  bool open() override;
  void close() override;
  int frames_in_flight(int setting, bool upstream_live) override;
  GstFlowReturn prepare() override;
  GstKeypointFrameStart begin(GstBuffer* buffer) override;
  GstFlowReturn finish(GstBuffer* buffer) override;
  void cancel() override;

  FilterSettings settings;            // object lock
  gboolean settings_changed = FALSE;  // object lock
  // A keypointtracker downstream asked for the descriptors in device memory too (object lock).
  gboolean device_descriptors_requested = FALSE;
  Runtime runtime;
};

}  // namespace

struct _GstGpusiftFilter {
  GstKeypointBaseTransform parent;

  FilterWork* work;  // the base class's, for the functions below
};

G_DEFINE_TYPE(GstGpusiftFilter, gst_gpusift_filter, GST_TYPE_KEYPOINT_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE(gpusiftfilter, "gpusiftfilter", GST_RANK_NONE, GST_TYPE_GPUSIFT_FILTER);

namespace {

GstKeypointBaseTransform* base_of(GstGpusiftFilter* self) {
  return GST_KEYPOINT_BASE_TRANSFORM(self);
}

[[maybe_unused]] gpusift::gst::CudaContextPointer context_of(GstGpusiftFilter* self) {
  return gpusift::gst::keypoint_base_context(base_of(self));
}

bool on_gpu(GstGpusiftFilter* self) {
  return gpusift::gst::keypoint_base_backend(base_of(self)) == Backend::kCuda;
}

FilterSettings current_settings(GstGpusiftFilter* self) {
  GST_OBJECT_LOCK(self);
  const FilterSettings copy = self->work->settings;
  self->work->settings_changed = FALSE;
  GST_OBJECT_UNLOCK(self);
  return copy;
}

// (Re)creates the extractor for runtime->settings, on the context the caller made current. False
// after posting an error.
bool build_extractor(GstGpusiftFilter* self) {
  Runtime& rt = self->work->runtime;
  try {
    rt.extractor.reset();
    rt.extractor = on_gpu(self) ? gpusift::gst::create_element_cuda_extractor(
                                      rt.settings.features,
                                      gpusift::gst::keypoint_base_device_id(base_of(self)))
                                : gpusift::create_extractor(Backend::kCpu, rt.settings.features);
    rt.extractor->set_host_frame_access(rt.settings.host_frame_access);
  } catch (const gpusift::Error& error) {
    keypoint_base_post_error(base_of(self), error);
    return false;
  }
  GST_INFO_OBJECT(self, "frames in system memory are %s",
                  rt.extractor->reads_host_frames_in_place() ? "read in place" : "uploaded");
  return true;
}

// Device pointers are only usable when the buffer's CUDA memory lives in our context.
bool can_read_on_device(GstGpusiftFilter* self, GstBuffer* buffer) {
#ifdef GPUSIFT_HAVE_GST_CUDA
  if (!self->work->runtime.cuda_memory_caps || !on_gpu(self))
    return false;
  GstMemory* memory = gst_buffer_peek_memory(buffer, 0);
  return gst_is_cuda_memory(memory) && GST_CUDA_MEMORY_CAST(memory)->context == context_of(self);
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
  Runtime& rt = self->work->runtime;
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
  const GstKeypointsMeta* meta = gst_buffer_add_keypoints_meta_from_bytes(
      buffer, method, GST_VIDEO_INFO_WIDTH(&rt.info), GST_VIDEO_INFO_HEIGHT(&rt.info), keypoints,
      type, f.descriptor_size, descriptors);
  g_bytes_unref(keypoints);
  if (descriptors)
    g_bytes_unref(descriptors);
#if defined(GPUSIFT_HAVE_GST_TENSORS) && GST_CHECK_VERSION(1, 26, 0)
  GST_OBJECT_LOCK(self);
  const bool tensors = self->work->settings.analytics;
  GST_OBJECT_UNLOCK(self);
  if (meta && tensors)
    gst_buffer_add_keypoints_tensors(buffer, meta);
#else
  (void)meta;
#endif
}

void post_frame_message(GstGpusiftFilter* self, GstBuffer* buffer, gint64 elapsed_us) {
  GstStructure* s = gpusift::gst::keypoint_base_new_frame_message(base_of(self), buffer);
  if (!s)
    return;
  gst_structure_set(s, "n-keypoints", G_TYPE_UINT,
                    static_cast<guint>(self->work->runtime.features.keypoints.size()),
                    "processing-time-us", G_TYPE_UINT64, static_cast<guint64>(elapsed_us), nullptr);
  gpusift::gst::keypoint_base_post_frame_message(base_of(self), s);
}

// Only when asked: the device-to-device copy costs a little GPU time and memory per frame.
void attach_device_descriptors(GstGpusiftFilter* self, GstBuffer* buffer) {
#ifdef GPUSIFT_HAVE_GST_CUDA
  Runtime& rt = self->work->runtime;
  GST_OBJECT_LOCK(self);
  const bool requested = self->work->device_descriptors_requested;
  GST_OBJECT_UNLOCK(self);
  gpusift::DeviceFeatures device;
  if (!requested || !context_of(self) || !rt.extractor->device_features(&device))
    return;
  if (!rt.device_copies.attach(context_of(self), device, buffer))
    GST_LOG_OBJECT(self, "no device copy of this frame's descriptors");
#else
  (void)self;
  (void)buffer;
#endif
}

void warn_overflow_once(GstGpusiftFilter* self) {
  Runtime& rt = self->work->runtime;
  if (!rt.features.overflowed || rt.overflow_warned)
    return;
  rt.overflow_warned = true;
  GST_ELEMENT_WARNING(
      self, STREAM, FAILED, ("Too many keypoints: the strongest are kept"),
      ("%d detected, %zu kept (max-keypoints=%d); warned once per stream",
       rt.features.detected_count, rt.features.keypoints.size(), rt.settings.max_keypoints()));
}

// The features just collected (rt.features) onto the frame's buffer.
void attach_results(GstGpusiftFilter* self, GstBuffer* buffer, gint64 elapsed_us) {
  const Runtime& rt = self->work->runtime;
  attach_meta(self, buffer);
  attach_device_descriptors(self, buffer);
  warn_overflow_once(self);
  GST_LOG_OBJECT(self, "%zu keypoints in %" G_GINT64_FORMAT " us", rt.features.keypoints.size(),
                 elapsed_us);
  post_frame_message(self, buffer, elapsed_us);
}

// A failed submit takes the frames in flight before it down too (extractor.h). Their pixels are
// still mapped, so each runs again alone and leaves before the error is posted.
void rerun_frames_in_flight(GstGpusiftFilter* self) {
  GstKeypointBaseTransform* base = base_of(self);
  Runtime& rt = self->work->runtime;
  while (!rt.submitted.empty() && gpusift::gst::keypoint_base_held_count(base) > 0) {
    const gint64 start_us = g_get_monotonic_time();
    try {
      rt.extractor->extract(rt.submitted.oldest_view(), &rt.features);
    } catch (const gpusift::Error& error) {
      GST_WARNING_OBJECT(self, "a frame before the failing one failed again: %s", error.what());
      break;
    }
    rt.submitted.release_oldest();
    GstBuffer* buffer = gpusift::gst::keypoint_base_take_oldest_held(base);
    attach_results(self, buffer, g_get_monotonic_time() - start_us);
    if (gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(self), buffer) != GST_FLOW_OK)
      break;
  }
  rt.submitted.drop_all();
  while (gpusift::gst::keypoint_base_held_count(base) > 0)
    gst_buffer_unref(gpusift::gst::keypoint_base_take_oldest_held(base));
}

#ifdef GPUSIFT_HAVE_NVMM
// Read on the element's CUDA context or device: the CPU backend cannot (NvmmFrame::map says so).
GstFlowReturn map_nvmm_frame(GstGpusiftFilter* self, GstBuffer* buffer,
                             gpusift::gst::FrameMapping* mapping, gpusift::FrameView* view) {
  const Runtime& rt = self->work->runtime;
  const gpusift::gst::NvmmCudaTarget target{
#ifdef GPUSIFT_HAVE_GST_CUDA
      context_of(self),
#else
      nullptr,
#endif
      gpusift::gst::keypoint_base_device_id(base_of(self))};
  auto frame = std::make_unique<gpusift::gst::NvmmFrame>();
  const std::string problem = frame->map(on_gpu(self) ? &target : nullptr, buffer, rt.info, view);
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
GstFlowReturn map_input(GstGpusiftFilter* self, GstBuffer* buffer,
                        gpusift::gst::FrameMapping* mapping, gpusift::FrameView* view) {
#ifdef GPUSIFT_HAVE_NVMM
  if (self->work->runtime.nvmm_caps)
    return map_nvmm_frame(self, buffer, mapping, view);
#endif
  return gpusift::gst::map_extractor_frame(GST_ELEMENT(self), buffer, self->work->runtime.info,
                                           can_read_on_device(self, buffer), &mapping->video, view);
}

}  // namespace

// The extractor for the settings at start, on the backend the base class resolved.
bool FilterWork::open() {
  GstKeypointBaseTransform* base = element_;
  GstGpusiftFilter* self = GST_GPUSIFT_FILTER(base);
  Runtime& rt = self->work->runtime;
  rt.settings = current_settings(self);
  rt.overflow_warned = false;
  GST_INFO_OBJECT(self, "%s on backend %s", gpusift::method_name(rt.settings.features.method),
                  gpusift::backend_name(gpusift::gst::keypoint_base_backend(base)));
  return build_extractor(self);
}

void FilterWork::close() {
  GstGpusiftFilter* self = GST_GPUSIFT_FILTER(element_);
  Runtime& rt = self->work->runtime;
  rt.extractor.reset();
  rt.features = gpusift::Features{};
#ifdef GPUSIFT_HAVE_GST_CUDA
  rt.device_copies.release();
#endif
  GST_OBJECT_LOCK(self);
  self->work->device_descriptors_requested = FALSE;  // asked for again by the next stream's tracker
  GST_OBJECT_UNLOCK(self);
}

// As many as the extractor takes of what max-frames-in-flight asks for (filter_settings.h).
int FilterWork::frames_in_flight(int setting, bool upstream_live) {
  const Runtime& rt = runtime;
  if (!rt.extractor)
    return 1;
  return gpusift::gst::filter_frames_in_flight(setting, rt.extractor->max_in_flight(),
                                               upstream_live);
}

// A new extractor when the settings changed, after the frames in flight on the old one have left.
// No extractor: the last settings were refused (an error was posted); they are tried again.
GstFlowReturn FilterWork::prepare() {
  GstKeypointBaseTransform* base = element_;
  GstGpusiftFilter* self = GST_GPUSIFT_FILTER(base);
  Runtime& rt = self->work->runtime;
  GST_OBJECT_LOCK(self);
  const bool changed = self->work->settings_changed;
  GST_OBJECT_UNLOCK(self);
  if (!changed && rt.extractor)
    return GST_FLOW_OK;
  const GstFlowReturn ret = gpusift::gst::keypoint_base_push_held(base);
  if (ret != GST_FLOW_OK)
    return ret;
  const gpusift::HostFrameAccess kept = rt.settings.host_frame_access;  // fixed while running
  rt.settings = current_settings(self);
  rt.settings.host_frame_access = kept;
  if (!build_extractor(self))
    return GST_FLOW_ERROR;
  gpusift::gst::keypoint_base_update_frames_in_flight(base);
  return GST_FLOW_OK;
}

// The frame mapped and submitted to the extractor.
GstKeypointFrameStart FilterWork::begin(GstBuffer* buffer) {
  GstKeypointBaseTransform* base = element_;
  GstGpusiftFilter* self = GST_GPUSIFT_FILTER(base);
  Runtime& rt = self->work->runtime;
  gpusift::gst::FrameMapping mapping;
  gpusift::FrameView view;
  if (map_input(self, buffer, &mapping, &view) != GST_FLOW_OK) {
    gpusift::gst::keypoint_base_push_held(base);  // the frames before a bad one still leave
    return GST_KEYPOINT_FRAME_ERROR;
  }
  const gint64 start_us = g_get_monotonic_time();
  try {
    rt.extractor->submit(view);
  } catch (const gpusift::Error& error) {
    mapping.unmap();
    rerun_frames_in_flight(self);
    keypoint_base_post_error(base, error);
    return GST_KEYPOINT_FRAME_ERROR;
  }
  rt.submitted.hold(std::move(mapping), view, g_get_monotonic_time() - start_us);
  return GST_KEYPOINT_FRAME_BEGUN;
}

// The oldest frame in flight collected, its pixels unmapped and its features attached. After an
// error no frame is left in flight (the extractor drops them all).
GstFlowReturn FilterWork::finish(GstBuffer* buffer) {
  GstKeypointBaseTransform* base = element_;
  GstGpusiftFilter* self = GST_GPUSIFT_FILTER(base);
  Runtime& rt = self->work->runtime;
  const gint64 start_us = g_get_monotonic_time();
  try {
    rt.extractor->collect(&rt.features);
  } catch (const gpusift::Error& error) {
    rt.submitted.drop_all();
    keypoint_base_post_error(base, error);
    return GST_FLOW_ERROR;
  }
  const gint64 submit_us = rt.submitted.release_oldest();
  // The frame's own time on the streaming thread, not the frames upstream made meanwhile.
  attach_results(self, buffer, submit_us + g_get_monotonic_time() - start_us);
  return GST_FLOW_OK;
}

// A flush or stop: once the device no longer reads the frames in flight, their pixels go.
void FilterWork::cancel() {
  GstGpusiftFilter* self = GST_GPUSIFT_FILTER(element_);
  Runtime& rt = self->work->runtime;
  try {
    if (rt.extractor)
      rt.extractor->cancel();
  } catch (const gpusift::Error& error) {
    GST_WARNING_OBJECT(self, "dropping the frames in flight: %s", error.what());
  }
  rt.submitted.drop_all();
}

static gboolean gst_gpusift_filter_set_caps(GstBaseTransform* trans, GstCaps* incaps,
                                            GstCaps* outcaps) {
  (void)outcaps;
  GstGpusiftFilter* self = GST_GPUSIFT_FILTER(trans);
  Runtime& rt = self->work->runtime;
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
  GstCudaContext* context = context_of(self);
  GstCaps* caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  GstVideoInfo info;
  if (!context || !on_gpu(self) || !caps || in_device_memory(caps) ||
      !gst_video_info_from_caps(&info, caps))
    return answered;
  if (gst_query_get_n_allocation_pools(query) > 0) {
    GST_DEBUG_OBJECT(self, "downstream offered a pool: no pinned pool");
    return answered;
  }
  // The allocator goes in too: upstream elements that configure the pool themselves (basesrc
  // subclasses) take the query's first allocator for it.
  GstAllocator* allocator = gpusift::gst::pinned_host_allocator_new(context);
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
  // Downstream (keypointmatcher) asks how this stream's features are made.
  if (direction == GST_PAD_SRC && gpusift::gst::is_feature_settings_query(query)) {
    GST_OBJECT_LOCK(self);
    const gpusift::FeatureConfig config = self->work->settings.features;
    GST_OBJECT_UNLOCK(self);
    gpusift::gst::answer_feature_settings_query(query, config);
    return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS(gst_gpusift_filter_parent_class)->query(trans, direction, query);
}

static gboolean gst_gpusift_filter_src_event(GstBaseTransform* trans, GstEvent* event) {
  GstGpusiftFilter* self = GST_GPUSIFT_FILTER(trans);
  if (gst_keypoints_device_request_is(event)) {
    GST_DEBUG_OBJECT(self, "downstream asks for the descriptors in device memory");
    GST_OBJECT_LOCK(self);
    self->work->device_descriptors_requested = TRUE;
    GST_OBJECT_UNLOCK(self);
    gst_event_unref(event);
    return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS(gst_gpusift_filter_parent_class)->src_event(trans, event);
}

// What the element adds to each buffer (gst-inspect's description).
static const char kDescription[] =
    "Detects SIFT or SURF keypoints and computes their descriptors on NVIDIA GPUs (CUDA) or the "
    "CPU, and attaches them to each buffer as a GstKeypointsMeta (keypoints and descriptors); "
    "for a keypointtracker on the GPU that asks, also a copy of the descriptors in device "
    "memory. Pixels pass unchanged";

static void gst_gpusift_filter_class_init(GstGpusiftFilterClass* klass) {
  const auto info =
      gpusift::gst::KeypointElementClassInfo(
          "gpusiftfilter", "SIFT and SURF feature extractor", kDescription,
          "Where features are computed; auto falls back to the CPU with a warning when no GPU "
          "is usable",
          "extracting features")
          .with_pads(&sink_template, &src_template)
          // The GPU extracts the next frame while the held one's results come back.
          .holding_frames(gpusift::gst::kFilterFramesInFlightBlurb, true)
          .warning_without_gpu();
  gpusift::gst::keypoint_base_class_init(GST_KEYPOINT_BASE_TRANSFORM_CLASS(klass), info);
  gpusift::gst::install_filter_properties(G_OBJECT_CLASS(klass));

  GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  trans_class->set_caps = GST_DEBUG_FUNCPTR(gst_gpusift_filter_set_caps);
  trans_class->query = GST_DEBUG_FUNCPTR(gst_gpusift_filter_query);
  trans_class->propose_allocation = GST_DEBUG_FUNCPTR(gst_gpusift_filter_propose_allocation);
  trans_class->src_event = GST_DEBUG_FUNCPTR(gst_gpusift_filter_src_event);
  GST_DEBUG_CATEGORY_INIT(gst_gpusift_filter_debug, "gpusiftfilter", 0, "gpusiftfilter");
#ifdef GPUSIFT_HAVE_GST_CUDA
  gst_cuda_memory_init_once();
#endif
}

static void gst_gpusift_filter_init(GstGpusiftFilter* self) {
  self->work = new FilterWork(GST_KEYPOINT_BASE_TRANSFORM(self));
  gpusift::gst::keypoint_base_set_work(GST_KEYPOINT_BASE_TRANSFORM(self), self->work);
}
