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
#include <gst/keypoints/gstkeypointsmeta.h>

#include <cstddef>

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

  /* Set by keypoint_base_class_init (below). */
  const char* frame_message_name;  // the per-frame message's name: the element's
  const char* work_description;    // completes error texts: "Out of memory extracting features"
  gboolean warn_cpu_fallback;      // backend=auto without a GPU: warn (TRUE) or only log
  gboolean begin_before_finish;    // frames in flight: how they overlap (KeypointElementWork)
  const char* verb;       // keypoint_base_features_meta's warnings: "No keypoints to track:
  const char* untouched;  // buffers pass untracked"
};

G_END_DECLS

namespace gpusift::gst {

// The work of one element, behind GstKeypointBaseTransform: its own properties and what it does
// with a frame. The subclass's instance init hands one to the base (keypoint_base_set_work),
// which owns it and calls it on the streaming thread (open and close on the state-change thread),
// with the element's CUDA context current.
class KeypointElementWork {
 public:
  explicit KeypointElementWork(GstKeypointBaseTransform* element) : element_(element) {}
  virtual ~KeypointElementWork() = default;
  KeypointElementWork(const KeypointElementWork&) = delete;
  KeypointElementWork& operator=(const KeypointElementWork&) = delete;

  // The element's own properties (ids below kKeypointBasePropertyIds), with the object lock held.
  virtual void set_property(guint id, const GValue* value) = 0;
  virtual void get_property(guint id, GValue* value) const = 0;

  // At start, once the backend is resolved: builds the extractor or matcher. False after posting
  // an error; close() then runs.
  virtual bool open() = 0;
  // At stop, or after a failed start: frees what open() made.
  virtual void close() = 0;

  // Frames in flight for a max-frames-in-flight `setting` (0: auto) and upstream's liveness, as
  // far as the work takes them. Two frames overlap the element's work (on the GPU or a worker
  // thread) with upstream's: with the class's begin_before_finish the next frame begins before
  // the held one finishes (both on the GPU), without it the held one finishes first.
  virtual int frames_in_flight(int setting, bool upstream_live) {
    (void)setting;
    (void)upstream_live;
    return 1;
  }
  // Before each frame: a rebuild after settings changed, once the frames in flight have been
  // pushed out (keypoint_base_push_held).
  virtual GstFlowReturn prepare() { return GST_FLOW_OK; }
  // The first half of a frame, on a writable buffer.
  virtual GstKeypointFrameStart begin(GstBuffer* buffer) = 0;
  // The second half: the results onto the buffer. Frames finish in the order they began.
  virtual GstFlowReturn finish(GstBuffer* buffer) {
    (void)buffer;
    return GST_FLOW_OK;
  }
  // A flush or stop while frames are begun: once it returns nothing reads them any more.
  virtual void cancel() {}

 protected:
  GstKeypointBaseTransform* const element_;
};

// Pads for elements that read only metas, never pixels: any video, in any memory.
extern GstStaticPadTemplate kMetaOnlySinkTemplate;
extern GstStaticPadTemplate kMetaOnlySrcTemplate;

// What keypoint_base_class_init sets up for a subclass: who it is, then what it does besides.
struct KeypointElementClassInfo {
  // name: the element's, which its per-frame messages take; description: what it adds to each
  // buffer; backend_blurb: "Where ... run; auto ..."; work: completes error texts ("extracting
  // features").
  KeypointElementClassInfo(const char* name, const char* longname, const char* description,
                           const char* backend_blurb, const char* work)
      : name(name),
        longname(longname),
        description(description),
        backend_blurb(backend_blurb),
        work(work) {}
  // The element's pads.
  KeypointElementClassInfo& with_pads(GstStaticPadTemplate* sink, GstStaticPadTemplate* src) {
    sink_template = sink, src_template = src;
    return *this;
  }
  // It reads GstKeypointsMeta's descriptors, never pixels (any video caps): what it does with
  // them ("track") and what becomes of a buffer without them ("untracked").
  KeypointElementClassInfo& reading_descriptors(const char* what, const char* without) {
    verb = what, untouched = without;
    return with_pads(&kMetaOnlySinkTemplate, &kMetaOnlySrcTemplate);
  }
  // It holds frames back (max-frames-in-flight, with this blurb); `next_first`: the next frame
  // begins before the held one finishes (KeypointElementWork::frames_in_flight).
  KeypointElementClassInfo& holding_frames(const char* blurb, bool next_first) {
    frames_in_flight_blurb = blurb, begin_before_finish = next_first;
    return *this;
  }
  // The first element of a pipeline warns when backend=auto finds no GPU; the others only log.
  KeypointElementClassInfo& warning_without_gpu() {
    warn_cpu_fallback = true;
    return *this;
  }

  const char* name;
  const char* longname;
  const char* description;
  const char* backend_blurb;
  const char* work;
  const char* verb = nullptr;
  const char* untouched = nullptr;
  const char* frames_in_flight_blurb = nullptr;  // null: max-frames-in-flight is not installed
  bool begin_before_finish = false;
  bool warn_cpu_fallback = false;
  GstStaticPadTemplate* sink_template = nullptr;
  GstStaticPadTemplate* src_template = nullptr;
};

// In the subclass's class_init, first: the element's metadata and pads, and the base's
// properties (backend, cuda-device-id, post-messages, max-frames-in-flight) on the subclass,
// whose own properties the base then routes to its KeypointElementWork.
inline constexpr guint kKeypointBasePropertyIds = 0x1000;
void keypoint_base_class_init(GstKeypointBaseTransformClass* klass,
                              const KeypointElementClassInfo& info);
// In the subclass's instance init: the base takes `work`.
void keypoint_base_set_work(GstKeypointBaseTransform* self, KeypointElementWork* work);
KeypointElementWork* keypoint_base_work(GstKeypointBaseTransform* self);

// "GstGpusiftBackend": auto, cuda, cpu.
GType backend_enum_type();

// The properties the base owns, as they are now (the object lock is taken).
struct BaseSettings {
  Backend backend = Backend::kAuto;
  int cuda_device_id = -1;
  bool post_messages = false;
  int max_frames_in_flight = 0;  // 0: auto
};
BaseSettings keypoint_base_settings(GstKeypointBaseTransform* self);
// From start to stop: the backend in use (never kAuto) and its device, as resolved at start.
Backend keypoint_base_backend(GstKeypointBaseTransform* self);
int keypoint_base_device_id(GstKeypointBaseTransform* self);
// The element's CUDA context (null on the CPU backend, or without gstreamer-cuda).
CudaContextPointer keypoint_base_context(GstKeypointBaseTransform* self);

// What a buffer offers an element that reads keypoints with descriptors.
struct FeaturesOnBuffer {
  // The buffer's GstKeypointsMeta when it carries descriptors and its fields agree with its
  // arrays; null without a meta or descriptors (a warning once per stream; the buffer then
  // passes as it came) and for an inconsistent meta.
  const GstKeypointsMeta* meta = nullptr;
  // An inconsistent meta (its fields changed after it was added): an element error was posted,
  // and the frame ends in GST_KEYPOINT_FRAME_ERROR.
  bool refused = false;
};
FeaturesOnBuffer keypoint_base_features_meta(GstKeypointBaseTransform* self, GstBuffer* buffer);

// The library's error as the element's GStreamer error.
void keypoint_base_post_error(GstKeypointBaseTransform* self, const Error& error);

// A per-frame message named after the element with the buffer's "timestamp" and
// "running-time", or null when post-messages is off. Add fields, then post it.
GstStructure* keypoint_base_new_frame_message(GstKeypointBaseTransform* self, GstBuffer* buffer);
void keypoint_base_post_frame_message(GstKeypointBaseTransform* self, GstStructure* s);
// A message field holding `count` doubles (a matrix row by row, corners x0 y0 x1 y1 ...).
void set_double_array_field(GstStructure* s, const char* name, const double* values, size_t count);

// Asks frames_in_flight() again (the work's capacity changed, e.g. a new extractor), and tells
// the pipeline when the latency changes with it.
void keypoint_base_update_frames_in_flight(GstKeypointBaseTransform* self);
// Every begun frame finishes and leaves now, oldest first; on a failure the rest are dropped.
GstFlowReturn keypoint_base_push_held(GstKeypointBaseTransform* self);
// Begun frames, oldest first: the count, and the oldest taken out (the caller owns it), for work
// that redoes them itself after an error.
size_t keypoint_base_held_count(GstKeypointBaseTransform* self);
GstBuffer* keypoint_base_take_oldest_held(GstKeypointBaseTransform* self);

}  // namespace gpusift::gst
