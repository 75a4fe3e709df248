// SPDX-License-Identifier: LGPL-2.1-or-later
/* GstKeypointBaseTransform: the base class of the elements that compute on the GPU or the CPU
 * (gpusiftfilter, keypointtracker, keypointmatcher). It owns what they share, once:
 *
 * - the `backend`, `cuda-device-id` and `post-messages` properties (and, for subclasses that hold
 *   frames back, `max-frames-in-flight`), read and written under the object lock;
 * - the CUDA context: shared with the neighbours through GstContext (set_context and the context
 *   query), made or taken at start, released at stop, made current around every subclass hook;
 * - resolving backend=auto, and the library's errors as GStreamer errors;
 * - the per-frame element message;
 * - frames in flight: a frame begun now (on the GPU or a worker thread) finishes and leaves while
 *   later frames come in. The base holds the begun buffers, lets them leave before any serialised
 *   event or query (EOS, caps, segment, drain), drops them on a flush or stop, and adds the frame
 * of latency that holding one costs to the LATENCY answer.
 *
 * The buffers are worked on in place: pixels are never copied, the buffer is only made
 * metadata-writable. */
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>

#include "base/cuda_context_scope.h"
#include "gpusift/error.h"
#include "gpusift/extractor.h"

G_BEGIN_DECLS

#define GST_TYPE_KEYPOINT_BASE_TRANSFORM (gst_keypoint_base_transform_get_type())
G_DECLARE_DERIVABLE_TYPE(GstKeypointBaseTransform, gst_keypoint_base_transform, GST,
                         KEYPOINT_BASE_TRANSFORM, GstBaseTransform)

// What begin_frame made of a buffer.
typedef enum {
  GST_KEYPOINT_FRAME_DONE,   // nothing left to do: the buffer leaves as it is (in order)
  GST_KEYPOINT_FRAME_BEGUN,  // begun: finish_frame completes it
  GST_KEYPOINT_FRAME_ERROR,  // an error was posted
} GstKeypointFrameStart;

struct _GstKeypointBaseTransformClass {
  GstBaseTransformClass parent_class;

  /* Set in class_init. */
  // The element's per-frame message ("gpusiftfilter", ...): its name, and post-messages' blurb.
  const char* frame_message_name;
  // The work the backend does, for the `backend` property's blurb ("Where ... run").
  const char* backend_blurb;
  // "extracting features": completes error texts such as "Out of memory extracting features".
  const char* work_description;
  // backend=auto without a GPU: TRUE posts a warning (the first element of a pipeline), FALSE only
  // logs it (the elements behind gpusiftfilter, which already warned).
  gboolean warn_cpu_fallback;
  // With two frames in flight, TRUE: the next frame begins before the held one finishes (both on
  // the GPU); FALSE: the held frame finishes first (one worker, which tracks while upstream runs).
  gboolean begin_before_finish;

  /* Hooks, on the streaming thread (open/close on the state-change thread), each called with the
   * element's CUDA context current when it has one. */
  // At start, once the backend is resolved: builds the subclass's extractor or matcher. FALSE
  // after posting an error; close() then runs.
  gboolean (*open)(GstKeypointBaseTransform* self);
  // At stop, or after a failed start: frees what open() made (in the context it belongs to).
  void (*close)(GstKeypointBaseTransform* self);
  // Frames in flight for a max-frames-in-flight `setting` (0: auto) and upstream's liveness, as
  // far as the subclass's work takes them. NULL: always one.
  int (*frames_in_flight)(GstKeypointBaseTransform* self, int setting, gboolean upstream_live);
  // Before a frame (buffer not yet writable): a chance to rebuild after settings changed. The
  // frames in flight may be pushed out first (gst_keypoint_base_transform_push_held). NULL: OK.
  GstFlowReturn (*prepare_frame)(GstKeypointBaseTransform* self);
  // The first half of a frame on a writable buffer.
  GstKeypointFrameStart (*begin_frame)(GstKeypointBaseTransform* self, GstBuffer* buffer);
  // The second half: the results onto the buffer. Frames finish in the order they began.
  GstFlowReturn (*finish_frame)(GstKeypointBaseTransform* self, GstBuffer* buffer);
  // A flush or stop while frames are begun: once it returns nothing reads them any more (the
  // base then drops them).
  void (*cancel_frames)(GstKeypointBaseTransform* self);

  /* The subclass's own properties (the base dispatches every property: its own, then these),
   * called with the object lock held. */
  void (*set_element_property)(GstKeypointBaseTransform* self, guint id, const GValue* value,
                               GParamSpec* pspec);
  void (*get_element_property)(GstKeypointBaseTransform* self, guint id, GValue* value,
                               GParamSpec* pspec);
};

G_END_DECLS

namespace gpusift::gst {

// The properties the base owns, as a subclass reads them.
struct BaseSettings {
  Backend backend = Backend::kAuto;  // after start: the backend in use (never kAuto)
  int cuda_device_id = -1;
  bool post_messages = false;
  int max_frames_in_flight = 0;  // 0: auto
};

// Installs backend, cuda-device-id and post-messages on the subclass, with the base handling
// them. Call it first in the subclass's class_init (after setting backend_blurb and
// frame_message_name): it also routes the subclass's own properties, whose ids must stay below
// kKeypointBasePropertyIds, to set_element_property / get_element_property.
inline constexpr guint kKeypointBasePropertyIds = 0x1000;
void keypoint_base_install_properties(GstKeypointBaseTransformClass* klass);
// The same for max-frames-in-flight, on a subclass that holds frames back, with its own blurb.
void keypoint_base_install_frames_in_flight(GstKeypointBaseTransformClass* klass,
                                            const char* blurb);
// "GstGpusiftBackend": auto, cuda, cpu.
GType backend_enum_type();

// The settings as the properties hold them now (the object lock is taken).
BaseSettings keypoint_base_settings(GstKeypointBaseTransform* self);
// From start to stop: the backend in use and its device, as resolved at start.
Backend keypoint_base_backend(GstKeypointBaseTransform* self);
int keypoint_base_device_id(GstKeypointBaseTransform* self);
// The element's CUDA context (null on the CPU backend, or without gstreamer-cuda).
CudaContextPointer keypoint_base_context(GstKeypointBaseTransform* self);

// The library's error as the element's GStreamer error, completed by the class's
// work_description.
void keypoint_base_post_error(GstKeypointBaseTransform* self, const Error& error);

// A per-frame message named after the element ("gpusiftfilter", ...) with the buffer's
// "timestamp" and "running-time", or null when post-messages is off. Add fields, then post it.
GstStructure* keypoint_base_new_frame_message(GstKeypointBaseTransform* self, GstBuffer* buffer);
void keypoint_base_post_frame_message(GstKeypointBaseTransform* self, GstStructure* s);

// Frames in flight now (1 before the stream has settled them).
int keypoint_base_frames_in_flight(GstKeypointBaseTransform* self);
// Asks frames_in_flight() again (the subclass's capacity changed, e.g. a new extractor), and
// tells the pipeline when the latency changes with it.
void keypoint_base_update_frames_in_flight(GstKeypointBaseTransform* self);
// Every begun frame finishes and leaves now, oldest first; on a failure the rest are dropped.
GstFlowReturn keypoint_base_push_held(GstKeypointBaseTransform* self);
// Begun frames, oldest first: the count, and the oldest taken out (the caller owns it). For a
// subclass that redoes them itself after an error.
size_t keypoint_base_held_count(GstKeypointBaseTransform* self);
GstBuffer* keypoint_base_take_oldest_held(GstKeypointBaseTransform* self);

}  // namespace gpusift::gst
