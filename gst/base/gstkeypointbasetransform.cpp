// SPDX-License-Identifier: LGPL-2.1-or-later
#include "base/gstkeypointbasetransform.h"

#include <gst/video/video.h>

#include <atomic>
#include <deque>
#include <utility>

#include "base/element_cuda_objects.h"
#include "base/frame_latency.h"
#include "base/property_field.h"
#include "base/static_enum.h"

#ifdef GPUSIFT_HAVE_GST_CUDA
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>
#endif

GST_DEBUG_CATEGORY_STATIC(gst_keypoint_base_transform_debug);
#define GST_CAT_DEFAULT gst_keypoint_base_transform_debug

using gpusift::Backend;
using namespace gpusift::gst;  // NOLINT: this file implements gpusift::gst's base class

namespace {

enum BaseProperty : guint {
  kPropBackend = kKeypointBasePropertyIds,
  kPropCudaDeviceId,
  kPropPostMessages,
  kPropMaxFramesInFlight,
};

// What the streaming thread owns between start and stop.
struct Runtime {
  Backend backend = Backend::kCpu;  // resolved at start
  int device_id = -1;
  int frames_setting = 0;  // max-frames-in-flight at start (READY-only)
  // Begun and not yet finished, oldest first.
  std::deque<GstBuffer*> held;
  bool input_discont = false;  // of the buffer being taken in
  // Warned once per stream: buffers without keypoints, keypoints without descriptors.
  bool missing_meta_warned = false;
  bool missing_descriptors_warned = false;
  // Settled at start for an explicit max-frames-in-flight, at the first buffer for auto (it needs
  // upstream's liveness); frames_in_flight is read by latency queries on other threads.
  bool frames_in_flight_settled = false;
  bool upstream_live = false;
  std::atomic<int> frames_in_flight{1};
};

}  // namespace

typedef struct {
  BaseSettings* settings;  // object lock
  Runtime* runtime;
  gpusift::gst::CudaContextPointer context;
  gpusift::gst::KeypointElementWork* work;  // the subclass's, owned
} GstKeypointBaseTransformPrivate;

static void gst_keypoint_base_transform_set_property(GObject* object, guint id, const GValue* value,
                                                     GParamSpec* pspec);
static void gst_keypoint_base_transform_get_property(GObject* object, guint id, GValue* value,
                                                     GParamSpec* pspec);

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE(GstKeypointBaseTransform, gst_keypoint_base_transform,
                                    GST_TYPE_BASE_TRANSFORM);

#define PRIV(self)                               \
  static_cast<GstKeypointBaseTransformPrivate*>( \
      gst_keypoint_base_transform_get_instance_private(GST_KEYPOINT_BASE_TRANSFORM(self)))
#define KLASS(self) GST_KEYPOINT_BASE_TRANSFORM_GET_CLASS(self)
#define WORK(self) (*PRIV(self)->work)

namespace gpusift::gst {

GstStaticPadTemplate kMetaOnlySinkTemplate = GST_STATIC_PAD_TEMPLATE(
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-raw(ANY)"));
GstStaticPadTemplate kMetaOnlySrcTemplate = GST_STATIC_PAD_TEMPLATE(
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-raw(ANY)"));

namespace {

// The base's properties, each with the field that holds it (the same ids on every subclass).
PropertyTable<BaseSettings>& base_properties() {
  static PropertyTable<BaseSettings> table;
  return table;
}

}  // namespace

GType backend_enum_type() {
  return static_enum_type<Backend>(
      "GstGpusiftBackend", {
                               {Backend::kAuto, "CUDA when a GPU is present, else the CPU", "auto"},
                               {Backend::kCuda, "CUDA (error without a GPU)", "cuda"},
                               {Backend::kCpu, "CPU reference", "cpu"},
                           });
}

namespace {

// Resolves `auto`: the GPU when a CUDA context can be had (the neighbours' GstCudaContext, or a
// new one on the device), else the CPU. backend=cuda without one posts RESOURCE NOT_FOUND.
bool resolve_backend(GstKeypointBaseTransform* self, Runtime* rt, Backend wanted) {
  rt->backend = Backend::kCpu;
  if (wanted == Backend::kCpu)
    return true;
#ifdef GPUSIFT_HAVE_GST_CUDA
  GstKeypointBaseTransformPrivate* priv = PRIV(self);
  if (gst_cuda_load_library() &&
      gst_cuda_ensure_element_context(GST_ELEMENT(self), rt->device_id, &priv->context)) {
    rt->backend = Backend::kCuda;
    return true;
  }
  const char* reason = "no usable CUDA device or driver";
#else
  // Without gstreamer-cuda (GStreamer 1.20) the library selects the device: no context sharing
  // and no CUDA-memory caps, but the same work.
  if (cuda_device_present(rt->device_id)) {
    rt->backend = Backend::kCuda;
    return true;
  }
  const char* reason = "no CUDA device (or the CUDA backend is not built) with that id";
#endif
  if (wanted == Backend::kCuda) {
    GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND, ("The CUDA backend is not available"),
                      ("%s (backend=cuda)", reason));
    return false;
  }
  if (KLASS(self)->warn_cpu_fallback)
    GST_ELEMENT_WARNING(self, RESOURCE, NOT_FOUND, ("No GPU: running on the CPU backend"),
                        ("%s; backend=auto falls back to the CPU", reason));
  else  // gpusiftfilter upstream already warns when the GPU is missing; once is enough
    GST_INFO_OBJECT(self, "%s: on the CPU", reason);
  return true;
}

int resolve_frames_in_flight(GstKeypointBaseTransform* self, int setting, bool upstream_live) {
  CudaContextScope scope(PRIV(self)->context);
  return WORK(self).frames_in_flight(setting, upstream_live);
}

// Explicit values are settled at start, auto at the stream's first buffer; both hold until stop.
void settle_frames_in_flight(GstKeypointBaseTransform* self, bool first_buffer) {
  Runtime& rt = *PRIV(self)->runtime;
  if (rt.frames_in_flight_settled || (rt.frames_setting == 0 && !first_buffer))
    return;
  rt.upstream_live = rt.frames_setting == 0 && upstream_is_live(GST_BASE_TRANSFORM(self));
  rt.frames_in_flight_settled = true;
  rt.frames_in_flight = resolve_frames_in_flight(self, rt.frames_setting, rt.upstream_live);
  GST_INFO_OBJECT(self, "%d frame(s) in flight", rt.frames_in_flight.load());
}

// A flush or stop: the begun frames are dropped once nothing reads them any more.
void drop_held(GstKeypointBaseTransform* self) {
  Runtime& rt = *PRIV(self)->runtime;
  if (rt.held.empty())
    return;
  {
    CudaContextScope scope(PRIV(self)->context);
    WORK(self).cancel();
  }
  for (GstBuffer* buffer : rt.held)
    gst_buffer_unref(buffer);
  rt.held.clear();
}

GstFlowReturn finish(GstKeypointBaseTransform* self, GstBuffer* buffer) {
  CudaContextScope scope(PRIV(self)->context);
  return WORK(self).finish(buffer);
}

// The oldest begun frame, finished, as *out.
GstFlowReturn finish_oldest(GstKeypointBaseTransform* self, GstBuffer** out) {
  Runtime& rt = *PRIV(self)->runtime;
  GstBuffer* oldest = rt.held.front();
  rt.held.pop_front();
  const GstFlowReturn ret = finish(self, oldest);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref(oldest);
    drop_held(self);
    return ret;
  }
  *out = oldest;
  return GST_FLOW_OK;
}

GstKeypointFrameStart begin(GstKeypointBaseTransform* self, GstBuffer* buffer) {
  CudaContextScope scope(PRIV(self)->context);
  return WORK(self).begin(buffer);
}

GstFlowReturn prepare(GstKeypointBaseTransform* self) {
  CudaContextScope scope(PRIV(self)->context);
  return WORK(self).prepare();
}

// One frame in flight: begun and finished before the buffer leaves.
GstFlowReturn process_now(GstKeypointBaseTransform* self, GstBuffer* buffer) {
  switch (begin(self, buffer)) {
    case GST_KEYPOINT_FRAME_DONE:
      return GST_FLOW_OK;
    case GST_KEYPOINT_FRAME_ERROR:
      return GST_FLOW_ERROR;
    case GST_KEYPOINT_FRAME_BEGUN:
      break;
  }
  return finish(self, buffer);
}

// Frames in flight: the input begins and is held; a held frame leaves as *outbuf when the next
// one needs its place. The input is the outgoing buffer itself, made writable before it begins.
GstFlowReturn take_input(GstKeypointBaseTransform* self, GstBuffer* input, GstBuffer** outbuf) {
  Runtime& rt = *PRIV(self)->runtime;
  // The base class marks its next outgoing buffer DISCONT: that must be the input, not a frame
  // from before the discontinuity.
  GstFlowReturn ret = rt.input_discont ? keypoint_base_push_held(self) : GST_FLOW_OK;
  if (ret == GST_FLOW_OK)
    ret = prepare(self);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref(input);
    return ret;
  }
  GstBuffer* buffer = gst_buffer_make_writable(input);
  if (rt.frames_in_flight < 2) {
    // The subclass's capacity fell to one frame (prepare() pushed the held ones out first).
    ret = process_now(self, buffer);
    if (ret != GST_FLOW_OK) {
      gst_buffer_unref(buffer);
      return ret;
    }
    *outbuf = buffer;
    return GST_FLOW_OK;
  }
  switch (begin(self, buffer)) {
    case GST_KEYPOINT_FRAME_DONE:
      // Leaves after the frames begun before it.
      ret = keypoint_base_push_held(self);
      if (ret != GST_FLOW_OK) {
        gst_buffer_unref(buffer);
        return ret;
      }
      *outbuf = buffer;
      return GST_FLOW_OK;
    case GST_KEYPOINT_FRAME_ERROR:
      gst_buffer_unref(buffer);
      return GST_FLOW_ERROR;
    case GST_KEYPOINT_FRAME_BEGUN:
      break;
  }
  rt.held.push_back(buffer);
  if (static_cast<int>(rt.held.size()) < rt.frames_in_flight)
    return GST_FLOW_OK;
  return finish_oldest(self, outbuf);
}

}  // namespace

void keypoint_base_class_init(GstKeypointBaseTransformClass* klass,
                              const KeypointElementClassInfo& info) {
  klass->frame_message_name = info.name;
  klass->work_description = info.work;
  klass->warn_cpu_fallback = info.warn_cpu_fallback;
  klass->begin_before_finish = info.begin_before_finish;
  klass->verb = info.verb;
  klass->untouched = info.untouched;

  GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
  gst_element_class_set_static_metadata(element_class, info.longname, "Filter/Analyzer/Video",
                                        info.description, "gpusift developers");
  gst_element_class_add_static_pad_template(element_class, info.sink_template);
  gst_element_class_add_static_pad_template(element_class, info.src_template);

  GObjectClass* gobject_class = G_OBJECT_CLASS(klass);
  // GObject gives every class its own property functions: the subclass's go through the base's,
  // which hand the subclass's own properties to its KeypointElementWork.
  gobject_class->set_property = gst_keypoint_base_transform_set_property;
  gobject_class->get_property = gst_keypoint_base_transform_get_property;
  PropertyTable<BaseSettings>& table = base_properties();
  table.install(gobject_class, kPropBackend,
                g_param_spec_enum("backend", "Backend", info.backend_blurb, backend_enum_type(),
                                  static_cast<gint>(Backend::kAuto), kReadyOnly),
                [](BaseSettings& s) { return PropertyField(&s.backend); });
  table.install(gobject_class, kPropCudaDeviceId,
                g_param_spec_int("cuda-device-id", "CUDA device id",
                                 "CUDA device to use; -1 takes the neighbours' context or device 0",
                                 -1, G_MAXINT, -1, kReadyOnly),
                [](BaseSettings& s) { return PropertyField(&s.cuda_device_id); });
  gchar* blurb = g_strdup_printf("Post a \"%s\" element message for every frame", info.name);
  table.install(gobject_class, kPropPostMessages,
                g_param_spec_boolean(
                    "post-messages", "Post messages", blurb, FALSE,
                    static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_NAME |
                                             G_PARAM_STATIC_NICK | GST_PARAM_MUTABLE_PLAYING)),
                [](BaseSettings& s) { return PropertyField(&s.post_messages); });
  g_free(blurb);
  if (info.frames_in_flight_blurb)
    table.install(gobject_class, kPropMaxFramesInFlight,
                  g_param_spec_int("max-frames-in-flight", "Max frames in flight",
                                   info.frames_in_flight_blurb, 0, 2, 0, kReadyOnly),
                  [](BaseSettings& s) { return PropertyField(&s.max_frames_in_flight); });
}

void keypoint_base_set_work(GstKeypointBaseTransform* self, KeypointElementWork* work) {
  delete PRIV(self)->work;
  PRIV(self)->work = work;
}

KeypointElementWork* keypoint_base_work(GstKeypointBaseTransform* self) {
  return PRIV(self)->work;
}

BaseSettings keypoint_base_settings(GstKeypointBaseTransform* self) {
  GST_OBJECT_LOCK(self);
  const BaseSettings copy = *PRIV(self)->settings;
  GST_OBJECT_UNLOCK(self);
  return copy;
}

Backend keypoint_base_backend(GstKeypointBaseTransform* self) {
  return PRIV(self)->runtime->backend;
}

int keypoint_base_device_id(GstKeypointBaseTransform* self) {
  return PRIV(self)->runtime->device_id;
}

CudaContextPointer keypoint_base_context(GstKeypointBaseTransform* self) {
  return PRIV(self)->context;
}

void keypoint_base_post_error(GstKeypointBaseTransform* self, const Error& error) {
  const char* doing = KLASS(self)->work_description;
  switch (error.code()) {
    case ErrorCode::kOutOfMemory:
      GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, ("Out of memory %s", doing),
                        ("%s", error.what()));
      break;
    case ErrorCode::kNoDevice:
      GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND, ("No usable CUDA device"), ("%s", error.what()));
      break;
    case ErrorCode::kDeviceFailure:
      GST_ELEMENT_ERROR(self, RESOURCE, FAILED, ("CUDA failure %s", doing), ("%s", error.what()));
      break;
    case ErrorCode::kInvalidArgument:
      GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("Invalid settings or input %s", doing),
                        ("%s", error.what()));
      break;
    case ErrorCode::kFrameTooLarge:
      GST_ELEMENT_ERROR(self, STREAM, FORMAT, ("Frame too large for %s", doing),
                        ("%s", error.what()));
      break;
  }
}

GstStructure* keypoint_base_new_frame_message(GstKeypointBaseTransform* self, GstBuffer* buffer) {
  if (!keypoint_base_settings(self).post_messages)
    return nullptr;
  GstBaseTransform* trans = GST_BASE_TRANSFORM(self);
  const GstClockTime pts = GST_BUFFER_PTS(buffer);
  return gst_structure_new(
      KLASS(self)->frame_message_name, "timestamp", G_TYPE_UINT64, pts, "running-time",
      G_TYPE_UINT64, gst_segment_to_running_time(&trans->segment, GST_FORMAT_TIME, pts), nullptr);
}

void keypoint_base_post_frame_message(GstKeypointBaseTransform* self, GstStructure* s) {
  gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), s));
}

void set_double_array_field(GstStructure* s, const char* name, const double* values, size_t count) {
  GValue array = G_VALUE_INIT;
  gst_value_array_init(&array, static_cast<guint>(count));
  for (size_t i = 0; i < count; ++i) {
    GValue value = G_VALUE_INIT;
    g_value_init(&value, G_TYPE_DOUBLE);
    g_value_set_double(&value, values[i]);
    gst_value_array_append_and_take_value(&array, &value);
  }
  gst_structure_take_value(s, name, &array);
}

FeaturesOnBuffer keypoint_base_features_meta(GstKeypointBaseTransform* self, GstBuffer* buffer) {
  Runtime& rt = *PRIV(self)->runtime;
  const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(buffer);
  GstKeypointBaseTransformClass* klass = KLASS(self);
  if (!meta) {
    if (!rt.missing_meta_warned) {
      rt.missing_meta_warned = true;
      GST_ELEMENT_WARNING(self, STREAM, FORMAT,
                          ("No keypoints to %s: buffers pass %s", klass->verb, klass->untouched),
                          ("buffers without GstKeypointsMeta; put %s after gpusiftfilter (warned "
                           "once per stream)",
                           klass->frame_message_name));
    }
    return {};
  }
  GError* error = nullptr;
  if (!gst_keypoints_meta_validate(meta, &error)) {
    GST_ELEMENT_ERROR(self, STREAM, FORMAT, ("Inconsistent keypoints metadata on a buffer."),
                      ("%s (the meta's fields were changed after it was added)", error->message));
    g_error_free(error);
    FeaturesOnBuffer refused;
    refused.refused = true;
    return refused;
  }
  if (meta->descriptor_type == GST_KEYPOINTS_DESCRIPTOR_NONE) {
    if (!rt.missing_descriptors_warned) {
      rt.missing_descriptors_warned = true;
      GST_ELEMENT_WARNING(self, STREAM, FORMAT,
                          ("Keypoints without descriptors: buffers pass %s", klass->untouched),
                          ("set gpusiftfilter descriptor=float, uint8 or rootsift (warned once "
                           "per stream)"));
    }
    return {};
  }
  FeaturesOnBuffer found;
  found.meta = meta;
  return found;
}

int keypoint_base_frames_in_flight(GstKeypointBaseTransform* self) {
  return PRIV(self)->runtime->frames_in_flight;
}

void keypoint_base_update_frames_in_flight(GstKeypointBaseTransform* self) {
  Runtime& rt = *PRIV(self)->runtime;
  if (!rt.frames_in_flight_settled)
    return;
  const int before = rt.frames_in_flight;
  rt.frames_in_flight = resolve_frames_in_flight(self, rt.frames_setting, rt.upstream_live);
  if (rt.frames_in_flight == before)
    return;
  GST_INFO_OBJECT(self, "%d frame(s) in flight", rt.frames_in_flight.load());
  // A new method mid-stream can change the latency that the pipeline was told.
  gst_element_post_message(GST_ELEMENT(self), gst_message_new_latency(GST_OBJECT(self)));
}

GstFlowReturn keypoint_base_push_held(GstKeypointBaseTransform* self) {
  Runtime& rt = *PRIV(self)->runtime;
  while (!rt.held.empty()) {
    GstBuffer* buffer = nullptr;
    GstFlowReturn ret = finish_oldest(self, &buffer);
    if (ret == GST_FLOW_OK)
      ret = gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(self), buffer);
    if (ret != GST_FLOW_OK) {
      drop_held(self);
      return ret;
    }
  }
  return GST_FLOW_OK;
}

size_t keypoint_base_held_count(GstKeypointBaseTransform* self) {
  return PRIV(self)->runtime->held.size();
}

GstBuffer* keypoint_base_take_oldest_held(GstKeypointBaseTransform* self) {
  Runtime& rt = *PRIV(self)->runtime;
  GstBuffer* oldest = rt.held.front();
  rt.held.pop_front();
  return oldest;
}

}  // namespace gpusift::gst

namespace {

void release(GstKeypointBaseTransform* self) {
  GstKeypointBaseTransformPrivate* priv = PRIV(self);
  Runtime& rt = *priv->runtime;
  drop_held(self);
  {
    CudaContextScope scope(priv->context);  // device buffers go in the context they belong to
    WORK(self).close();
  }
  rt.frames_in_flight_settled = false;
  rt.frames_in_flight = 1;
#ifdef GPUSIFT_HAVE_GST_CUDA
  gst_clear_object(&priv->context);
#endif
}

}  // namespace

static gboolean gst_keypoint_base_transform_start(GstBaseTransform* trans) {
  GstKeypointBaseTransform* self = GST_KEYPOINT_BASE_TRANSFORM(trans);
  GstKeypointBaseTransformPrivate* priv = PRIV(self);
  Runtime& rt = *priv->runtime;
  const BaseSettings settings = keypoint_base_settings(self);
  rt.device_id = settings.cuda_device_id;
  rt.frames_setting = settings.max_frames_in_flight;
  rt.input_discont = false;
  rt.missing_meta_warned = rt.missing_descriptors_warned = false;
  if (!resolve_backend(self, &rt, settings.backend))
    return FALSE;
  GST_INFO_OBJECT(self, "on backend %s", gpusift::backend_name(rt.backend));
  bool opened = false;
  {
    CudaContextScope scope(priv->context);
    opened = WORK(self).open();
  }
  if (!opened) {
    release(self);  // a failed start gets no stop()
    return FALSE;
  }
  settle_frames_in_flight(self, false);
  return TRUE;
}

static gboolean gst_keypoint_base_transform_stop(GstBaseTransform* trans) {
  release(GST_KEYPOINT_BASE_TRANSFORM(trans));
  return TRUE;
}

static gboolean gst_keypoint_base_transform_sink_event(GstBaseTransform* trans, GstEvent* event) {
  GstKeypointBaseTransform* self = GST_KEYPOINT_BASE_TRANSFORM(trans);
  // A new stream: warn again about what it lacks.
  if (GST_EVENT_TYPE(event) == GST_EVENT_STREAM_START)
    PRIV(self)->runtime->missing_meta_warned = PRIV(self)->runtime->missing_descriptors_warned =
        false;
  // Begun frames leave before any event that follows them in the stream (EOS, caps, segment,
  // gap); a flush drops them.
  if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP) {
    drop_held(self);
  } else if (GST_EVENT_IS_SERIALIZED(event) && !PRIV(self)->runtime->held.empty()) {
    const GstFlowReturn ret = keypoint_base_push_held(self);
    if (ret != GST_FLOW_OK)
      GST_DEBUG_OBJECT(self, "the frames in flight before %s: %s", GST_EVENT_TYPE_NAME(event),
                       gst_flow_get_name(ret));
  }
  return GST_BASE_TRANSFORM_CLASS(gst_keypoint_base_transform_parent_class)
      ->sink_event(trans, event);
}

static GstFlowReturn gst_keypoint_base_transform_transform_ip(GstBaseTransform* trans,
                                                              GstBuffer* buffer) {
  GstKeypointBaseTransform* self = GST_KEYPOINT_BASE_TRANSFORM(trans);
  const GstFlowReturn ret = prepare(self);
  if (ret != GST_FLOW_OK)
    return ret;
  return process_now(self, buffer);
}

static GstFlowReturn gst_keypoint_base_transform_submit_input_buffer(GstBaseTransform* trans,
                                                                     gboolean is_discont,
                                                                     GstBuffer* input) {
  GstKeypointBaseTransform* self = GST_KEYPOINT_BASE_TRANSFORM(trans);
  PRIV(self)->runtime->input_discont = is_discont || GST_BUFFER_IS_DISCONT(input);
  return GST_BASE_TRANSFORM_CLASS(gst_keypoint_base_transform_parent_class)
      ->submit_input_buffer(trans, is_discont, input);
}

// The base class's submit_input_buffer has checked the input (negotiation, QoS) and queued it.
static GstFlowReturn gst_keypoint_base_transform_generate_output(GstBaseTransform* trans,
                                                                 GstBuffer** outbuf) {
  GstKeypointBaseTransform* self = GST_KEYPOINT_BASE_TRANSFORM(trans);
  Runtime& rt = *PRIV(self)->runtime;
  if (trans->queued_buf)
    settle_frames_in_flight(self, true);
  if (rt.frames_in_flight < 2 && rt.held.empty())
    return GST_BASE_TRANSFORM_CLASS(gst_keypoint_base_transform_parent_class)
        ->generate_output(trans, outbuf);
  *outbuf = nullptr;
  // One worker: the held frame finishes and leaves before the next begins.
  if (!KLASS(self)->begin_before_finish && !rt.held.empty())
    return finish_oldest(self, outbuf);
  GstBuffer* input = std::exchange(trans->queued_buf, nullptr);
  if (!input)
    return GST_FLOW_OK;
  return take_input(self, input, outbuf);
}

static void gst_keypoint_base_transform_set_context(GstElement* element, GstContext* context) {
#ifdef GPUSIFT_HAVE_GST_CUDA
  GstKeypointBaseTransform* self = GST_KEYPOINT_BASE_TRANSFORM(element);
  gst_cuda_handle_set_context(element, context, keypoint_base_settings(self).cuda_device_id,
                              &PRIV(self)->context);
#endif
  GST_ELEMENT_CLASS(gst_keypoint_base_transform_parent_class)->set_context(element, context);
}

static gboolean gst_keypoint_base_transform_query(GstBaseTransform* trans,
                                                  GstPadDirection direction, GstQuery* query) {
  GstKeypointBaseTransform* self = GST_KEYPOINT_BASE_TRANSFORM(trans);
  Runtime& rt = *PRIV(self)->runtime;
#ifdef GPUSIFT_HAVE_GST_CUDA
  if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT &&
      gst_cuda_handle_context_query(GST_ELEMENT(self), query, PRIV(self)->context))
    return TRUE;
#endif
  // Upstream draining its buffers (a drain query, or an allocation query before a new pool) gets
  // back the ones in flight, which leave first as they would before an event.
  if (direction == GST_PAD_SINK && GST_QUERY_IS_SERIALIZED(query) && !rt.held.empty()) {
    const GstFlowReturn ret = keypoint_base_push_held(self);
    if (ret != GST_FLOW_OK)
      GST_DEBUG_OBJECT(self, "the frames in flight before %s: %s", GST_QUERY_TYPE_NAME(query),
                       gst_flow_get_name(ret));
  }
  const gboolean answered = GST_BASE_TRANSFORM_CLASS(gst_keypoint_base_transform_parent_class)
                                ->query(trans, direction, query);
  // With two frames in flight a frame leaves one frame later: that much more latency.
  if (answered && GST_QUERY_TYPE(query) == GST_QUERY_LATENCY && direction == GST_PAD_SRC &&
      rt.frames_in_flight > 1 && !add_frame_of_latency(trans, query))
    GST_DEBUG_OBJECT(self, "frame rate unknown: no latency added for the frame in flight");
  return answered;
}

// One rule for every property: one flagged changeable only in NULL and READY is refused in
// PAUSED and PLAYING, with a warning, and keeps its value (the value in use); the others apply at
// the next frame.
static void gst_keypoint_base_transform_set_property(GObject* object, guint id, const GValue* value,
                                                     GParamSpec* pspec) {
  GstKeypointBaseTransform* self = GST_KEYPOINT_BASE_TRANSFORM(object);
  GST_OBJECT_LOCK(self);
  if ((pspec->flags & GST_PARAM_MUTABLE_READY) && GST_STATE(self) > GST_STATE_READY) {
    const GstState state = GST_STATE(self);
    gchar* name = g_strdup(GST_OBJECT_NAME(self));
    GST_OBJECT_UNLOCK(self);
    g_warning("%s: %s can change only in the NULL or READY state, not in %s; it keeps its value",
              name, pspec->name, gst_element_state_get_name(state));
    g_free(name);
    return;
  }
  if (id >= kKeypointBasePropertyIds)
    base_properties().set(PRIV(self)->settings, id, value);
  else
    WORK(self).set_property(id, value);
  GST_OBJECT_UNLOCK(self);
  (void)pspec;
}

static void gst_keypoint_base_transform_get_property(GObject* object, guint id, GValue* value,
                                                     GParamSpec* pspec) {
  GstKeypointBaseTransform* self = GST_KEYPOINT_BASE_TRANSFORM(object);
  GST_OBJECT_LOCK(self);
  if (id >= kKeypointBasePropertyIds)
    base_properties().get(*PRIV(self)->settings, id, value);
  else
    WORK(self).get_property(id, value);
  GST_OBJECT_UNLOCK(self);
  (void)pspec;
}

static void gst_keypoint_base_transform_finalize(GObject* object) {
  GstKeypointBaseTransformPrivate* priv = PRIV(object);
  delete priv->work;
  delete priv->runtime;
  delete priv->settings;
  G_OBJECT_CLASS(gst_keypoint_base_transform_parent_class)->finalize(object);
}

static void gst_keypoint_base_transform_class_init(GstKeypointBaseTransformClass* klass) {
  GObjectClass* gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);

  gobject_class->finalize = gst_keypoint_base_transform_finalize;
  element_class->set_context = GST_DEBUG_FUNCPTR(gst_keypoint_base_transform_set_context);

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;
  trans_class->start = GST_DEBUG_FUNCPTR(gst_keypoint_base_transform_start);
  trans_class->stop = GST_DEBUG_FUNCPTR(gst_keypoint_base_transform_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR(gst_keypoint_base_transform_sink_event);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR(gst_keypoint_base_transform_transform_ip);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR(gst_keypoint_base_transform_submit_input_buffer);
  trans_class->generate_output = GST_DEBUG_FUNCPTR(gst_keypoint_base_transform_generate_output);
  trans_class->query = GST_DEBUG_FUNCPTR(gst_keypoint_base_transform_query);

  GST_DEBUG_CATEGORY_INIT(gst_keypoint_base_transform_debug, "keypointbasetransform", 0,
                          "keypoint elements' base class");
  gst_type_mark_as_plugin_api(GST_TYPE_KEYPOINT_BASE_TRANSFORM, static_cast<GstPluginAPIFlags>(0));
}

static void gst_keypoint_base_transform_init(GstKeypointBaseTransform* self) {
  GstKeypointBaseTransformPrivate* priv = PRIV(self);
  priv->settings = new BaseSettings();
  priv->runtime = new Runtime();
  priv->context = nullptr;
  priv->work = nullptr;
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
}
