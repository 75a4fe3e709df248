// SPDX-License-Identifier: LGPL-2.1-or-later
/* keypointtracker: matches each frame's GstKeypointsMeta descriptors to the previous frame's,
 * fits the camera motion, and attaches a GstKeypointsTracksMeta with a track id per keypoint.
 * Pixels are never touched or mapped; the buffer is only made metadata-writable. */
#include "gstkeypointtracker.h"

#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/keypoints/gstkeypointstracksmeta.h>
#include <gst/video/video.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>

#include "base/element_cuda_objects.h"
#include "base/keypoint_layout.h"
#include "gpusift/error.h"
#include "gpusift/keypoint.h"
#include "gpusift/keypoint_tracking.h"
#include "gpusift/matcher.h"
#include "gpusift/tracker_worker.h"
#include "keypoints/gstkeypointsdevicemeta.h"
#include "tracker_frame.h"
#include "tracker_settings.h"

/**
 * SECTION:element-keypointtracker
 * @title: keypointtracker
 *
 * keypointtracker follows keypoints from frame to frame and estimates the camera's motion. The
 * descriptors of each frame's #GstKeypointsMeta are matched to the previous frame's (nearest
 * neighbour with Lowe's ratio test, mutual only with #GstKeypointTracker:cross-check), a motion
 * model (#GstKeypointTracker:motion-model: none, translation, similarity, affine or homography)
 * is fitted to the matches by RANSAC, and a keypoint continues the track of its match when it is
 * an inlier of that motion. A track without a match waits up to #GstKeypointTracker:max-missed
 * frames before it ends, and every #GstKeypointTracker:keyframe-interval frames a keyframe is
 * taken that later frames are also matched to, so that the cumulative motion drifts less.
 *
 * To each tracked buffer it adds a #GstKeypointsTracksMeta: one track per keypoint of the
 * #GstKeypointsMeta (its track id, the index of the matched keypoint in the previous frame, its
 * age) and the frame's camera motion (3x3 matrices from the previous frame and from the first
 * frame since tracking last started over, with the counts of matches, inliers and live tracks).
 * Track ids start at 1 and an element never gives out the same id twice. With
 * #GstKeypointTracker:post-messages set, it also posts a "keypointtracker" element message for
 * every frame, with timestamp, running-time, frame-number, keypoints, matches, inliers,
 * tracks-alive, new-tracks, resumed-tracks, ended-tracks, motion-model, motion-valid, motion and
 * cumulative (arrays of 9 doubles, row-major), cumulative-valid, keyframe, keyframe-matches,
 * keyframe-inliers, descriptors-on-device and processing-time-us.
 *
 * It needs gpusiftfilter upstream, with descriptors (descriptor=float, uint8 or rootsift):
 * buffers without a #GstKeypointsMeta, or with keypoints but no descriptors, pass unchanged with
 * one warning per stream. Pixels are neither read nor changed, so any raw video in any memory
 * goes through (video/x-raw(ANY)). Tracking starts over on a new stream or new caps, a flush, a
 * segment, a gap, a discontinuity, or a change of the keypoints' frame size or method.
 * keypointoverlay draws the tracks as trails.
 *
 * #GstKeypointTracker:backend says where matching and RANSAC run: cuda, cpu, or auto, which takes
 * the GPU when one is usable. On the GPU they run in the CUDA context shared with gpusiftfilter,
 * which the tracker asks to attach each frame's descriptors in device memory too, so that they
 * never pass through the host; the CPU backend gives the same tracks and motions. On the GPU after
 * a source that is not live it tracks a frame on a worker thread while upstream makes the next
 * one, and each frame leaves one frame later (#GstKeypointTracker:max-frames-in-flight).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -m videotestsrc num-buffers=60 pattern=smpte horizontal-speed=4 ! \
 *     video/x-raw,width=640,height=480 ! videoconvert ! gpusiftfilter ! \
 *     keypointtracker motion-model=translation post-messages=true ! fakesink
 * ]|
 * The test pattern pans left by 4 pixels a frame: each "keypointtracker" message reports a
 * translation whose x shift, the third value of its motion, is about -4.
 *
 * |[
 * gst-launch-1.0 -e filesrc location=in.mp4 ! decodebin ! videoconvert ! gpusiftfilter ! \
 *     keypointtracker ! keypointoverlay track-length=20 ! videoconvert ! x264enc ! mp4mux ! \
 *     filesink location=tracks.mp4
 * ]|
 * Draws the keypoints of in.mp4 and the trail of every track over its last 20 frames into
 * tracks.mp4.
 *
 * Since: 0.1
 */

GST_DEBUG_CATEGORY_STATIC(gst_keypoint_tracker_debug);
#define GST_CAT_DEFAULT gst_keypoint_tracker_debug

using gpusift::Backend;
using gpusift::gst::CudaContextPointer;
using gpusift::gst::CudaContextScope;
using gpusift::gst::TrackerSettings;
using gpusift::tracking::TrackAssignment;

static_assert(sizeof(GstKeypointTrack) == sizeof(TrackAssignment), "tracks are copied 1:1");
static_assert(offsetof(GstKeypointTrack, track_id) == offsetof(TrackAssignment, track_id), "");
static_assert(offsetof(GstKeypointTrack, previous_index) ==
                  offsetof(TrackAssignment, previous_index),
              "");
static_assert(offsetof(GstKeypointTrack, age) == offsetof(TrackAssignment, age), "");

namespace {

// The coordinate space and descriptors that tracks can continue across.
struct StreamLayout {
  GstKeypointsMethod method = GST_KEYPOINTS_METHOD_SIFT;
  guint width = 0;
  guint height = 0;
};

using TimingClock = std::chrono::steady_clock;

// A frame between the two halves of its tracking.
struct FrameInFlight {
  TrackerSettings settings;
  const GstKeypointsMeta* meta = nullptr;
  gint64 start_us = 0;
  TimingClock::time_point start, framed, begun_at;
};

// What the streaming thread owns between start and stop.
struct Runtime {
  std::unique_ptr<gpusift::Matcher> matcher, keyframe_matcher;
  std::unique_ptr<gpusift::tracking::KeypointTracker> tracker;
  gpusift::tracking::FrameResult result;
  StreamLayout layout;
  // Ids keep counting up across stop and start: an element never gives out one twice.
  uint64_t next_track_id = 1;
  bool device_descriptors_requested = false;
  // Per-phase wall-clock sums since the last GST_DEBUG summary (microseconds).
  gpusift::tracking::PhaseTimes phase_sums;
  double frame_sum_us = 0;    // the frame's features taken from the metas
  double attach_sum_us = 0;   // the tracks meta, and the message when posted
  double element_sum_us = 0;  // transform_ip as a whole
  int timed_frames = 0;
  // Between begin_frame and finish_frame (one frame at a time: the base class finishes the held
  // frame before the next begins).
  FrameInFlight in_flight;
  // With two frames in flight: tracks the held frame while upstream makes the next one.
  std::unique_ptr<gpusift::tracking::TrackerWorker> worker;
};

// keypointtracker's own work behind the base class: its settings and what it does with a frame.
class TrackerWork final : public gpusift::gst::KeypointElementWork {
 public:
  using KeypointElementWork::KeypointElementWork;
  void set_property(guint id, const GValue* value) override {
    gpusift::gst::set_tracker_property(&settings, id, value);
  }
  void get_property(guint id, GValue* value) const override {
    gpusift::gst::get_tracker_property(settings, id, value);
  }
  bool open() override;
  void close() override;
  int frames_in_flight(int setting, bool upstream_live) override;
  GstKeypointFrameStart begin(GstBuffer* buffer) override;
  GstFlowReturn finish(GstBuffer* buffer) override;
  void cancel() override;

  TrackerSettings settings;  // object lock
  Runtime runtime;
  // Set by events on any thread, acted on by the streaming thread before its next frame.
  std::atomic<bool> reset_requested{false};
};

// Frames per GST_DEBUG summary of where the time goes.
constexpr int kTimingSummaryFrames = 500;

double microseconds_between(TimingClock::time_point from, TimingClock::time_point to) {
  return std::chrono::duration<double, std::micro>(to - from).count();
}

}  // namespace

struct _GstKeypointTracker {
  GstKeypointBaseTransform parent;

  // The work's, for the functions below.
  TrackerSettings* settings;  // object lock
  Runtime* runtime;
  std::atomic<bool>* reset_requested;
};

G_DEFINE_TYPE(GstKeypointTracker, gst_keypoint_tracker, GST_TYPE_KEYPOINT_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE(keypointtracker, "keypointtracker", GST_RANK_NONE,
                            GST_TYPE_KEYPOINT_TRACKER);

namespace {

GstKeypointBaseTransform* base_of(GstKeypointTracker* self) {
  return GST_KEYPOINT_BASE_TRANSFORM(self);
}

CudaContextPointer context_of(GstKeypointTracker* self) {
  return gpusift::gst::keypoint_base_context(base_of(self));
}

void attach_meta(GstBuffer* buffer, const GstKeypointsMeta* keypoints,
                 const gpusift::tracking::FrameResult& r, gpusift::MotionModel model) {
  GstKeypointMotion motion;
  gst_keypoint_motion_init(&motion);
  motion.model = static_cast<GstKeypointMotionModel>(model);
  motion.frame_number = r.frame_number;
  motion.valid = r.motion_valid;
  std::copy(r.motion.begin(), r.motion.end(), motion.matrix);
  motion.cumulative_valid = r.cumulative_valid;
  std::copy(r.cumulative.begin(), r.cumulative.end(), motion.cumulative);
  motion.matches = static_cast<guint>(r.matches);
  motion.inliers = static_cast<guint>(r.inliers);
  motion.tracks_alive = static_cast<guint>(r.tracks_alive);
  gst_buffer_add_keypoints_tracks_meta(buffer, keypoints->width, keypoints->height,
                                       reinterpret_cast<const GstKeypointTrack*>(r.tracks.data()),
                                       static_cast<guint>(r.tracks.size()), &motion);
}

void post_frame_message(GstKeypointTracker* self, GstBuffer* buffer, gpusift::MotionModel model,
                        gint64 elapsed_us) {
  GstStructure* s = gpusift::gst::keypoint_base_new_frame_message(base_of(self), buffer);
  if (!s)
    return;
  const gpusift::tracking::FrameResult& r = self->runtime->result;
  gst_structure_set(s, "frame-number", G_TYPE_UINT64, static_cast<guint64>(r.frame_number),
                    "keypoints", G_TYPE_UINT, static_cast<guint>(r.tracks.size()), "matches",
                    G_TYPE_UINT, static_cast<guint>(r.matches), "inliers", G_TYPE_UINT,
                    static_cast<guint>(r.inliers), "tracks-alive", G_TYPE_UINT,
                    static_cast<guint>(r.tracks_alive), "new-tracks", G_TYPE_UINT,
                    static_cast<guint>(r.new_tracks), "resumed-tracks", G_TYPE_UINT,
                    static_cast<guint>(r.resumed), "ended-tracks", G_TYPE_UINT,
                    static_cast<guint>(r.ended_tracks), "motion-model", G_TYPE_STRING,
                    gst_keypoint_motion_model_to_string(static_cast<GstKeypointMotionModel>(model)),
                    "motion-valid", G_TYPE_BOOLEAN, r.motion_valid, "descriptors-on-device",
                    G_TYPE_BOOLEAN, r.descriptors_on_device, "cumulative-valid", G_TYPE_BOOLEAN,
                    r.cumulative_valid, "keyframe", G_TYPE_BOOLEAN, r.keyframe, "keyframe-matches",
                    G_TYPE_UINT, static_cast<guint>(r.keyframe_matches), "keyframe-inliers",
                    G_TYPE_UINT, static_cast<guint>(r.keyframe_inliers), "processing-time-us",
                    G_TYPE_UINT64, static_cast<guint64>(elapsed_us), nullptr);
  gpusift::gst::set_double_array_field(s, "motion", r.motion.data(), r.motion.size());
  gpusift::gst::set_double_array_field(s, "cumulative", r.cumulative.data(), r.cumulative.size());
  gpusift::gst::keypoint_base_post_frame_message(base_of(self), s);
}

// On the GPU, asks gpusiftfilter upstream to attach its descriptors in device memory as well, once
// per stream; until they come (or without a filter that can), the host rows are uploaded.
void request_device_descriptors(GstKeypointTracker* self) {
  Runtime& rt = *self->runtime;
  if (rt.device_descriptors_requested ||
      gpusift::gst::keypoint_base_backend(base_of(self)) != Backend::kCuda)
    return;
  rt.device_descriptors_requested = true;
  GST_DEBUG_OBJECT(self, "asking upstream for descriptors in device memory");
  gst_pad_push_event(GST_BASE_TRANSFORM_SINK_PAD(self), gst_keypoints_device_request_new());
}

void add_timing(GstKeypointTracker* self, double frame_us, double attach_us, double element_us) {
  Runtime& rt = *self->runtime;
  const gpusift::tracking::PhaseTimes& t = rt.result.times;
  gpusift::tracking::PhaseTimes& sum = rt.phase_sums;
  sum.previous += t.previous, sum.keyframe += t.keyframe, sum.resume += t.resume;
  sum.total += t.total;
  rt.frame_sum_us += frame_us, rt.attach_sum_us += attach_us, rt.element_sum_us += element_us;
  if (++rt.timed_frames < kTimingSummaryFrames)
    return;
  const double n = rt.timed_frames;
  GST_DEBUG_OBJECT(self,
                   "mean us per frame over %d frames: element %.1f = frame %.1f + tracker %.1f "
                   "(match and fit to the previous frame %.1f, lost tracks %.1f, wait for the "
                   "keyframe's %.1f) + meta %.1f",
                   rt.timed_frames, rt.element_sum_us / n, rt.frame_sum_us / n, sum.total / n,
                   sum.previous / n, sum.resume / n, sum.keyframe / n, rt.attach_sum_us / n);
  sum = gpusift::tracking::PhaseTimes{};
  rt.frame_sum_us = rt.attach_sum_us = rt.element_sum_us = 0;
  rt.timed_frames = 0;
}

void request_reset(GstKeypointTracker* self, const char* why) {
  GST_DEBUG_OBJECT(self, "tracking starts over: %s", why);
  self->reset_requested->store(true);
}

// Tracks continue only within one coordinate space and one kind of descriptor.
bool same_layout(const StreamLayout& layout, const GstKeypointsMeta* meta) {
  return layout.method == meta->method && layout.width == meta->width &&
         layout.height == meta->height;
}

}  // namespace

// The first half of a frame: checks, resets, and the tracker's matching enqueued (on the worker
// when frames are in flight). Untracked buffers (no meta, no descriptors) pass as they are.
GstKeypointFrameStart TrackerWork::begin(GstBuffer* buffer) {
  GstKeypointBaseTransform* base = element_;
  GstKeypointTracker* self = GST_KEYPOINT_TRACKER(base);
  Runtime& rt = *self->runtime;
  if (self->reset_requested->exchange(false) || GST_BUFFER_IS_DISCONT(buffer))
    rt.tracker->reset();

  const gpusift::gst::FeaturesOnBuffer found =
      gpusift::gst::keypoint_base_features_meta(base, buffer);
  const GstKeypointsMeta* meta = found.meta;
  if (!meta) {
    rt.tracker->reset();
    return found.refused ? GST_KEYPOINT_FRAME_ERROR : GST_KEYPOINT_FRAME_DONE;
  }
  if (!same_layout(rt.layout, meta)) {
    rt.tracker->reset();
    rt.layout = StreamLayout{meta->method, meta->width, meta->height};
  }

  request_device_descriptors(self);
  FrameInFlight& f = rt.in_flight;
  GST_OBJECT_LOCK(self);
  f.settings = *self->settings;
  GST_OBJECT_UNLOCK(self);
  f.meta = meta;
  f.start_us = g_get_monotonic_time();
  f.start = TimingClock::now();
  try {
    const gpusift::tracking::FrameFeatures frame =
        gpusift::gst::tracker_frame(buffer, meta, context_of(self));
    f.framed = TimingClock::now();
    if (rt.worker) {
      // The worker has the tracker to itself until finish_frame waits for it.
      gpusift::tracking::KeypointTracker* tracker = rt.tracker.get();
      gpusift::tracking::FrameResult* result = &rt.result;
      const gpusift::tracking::TrackerParams params = f.settings.params;
      CudaContextPointer context = context_of(self);
      rt.worker->submit([tracker, result, params, context, frame] {
        CudaContextScope worker_scope(context);
        tracker->process(frame, params, result);
      });
    } else {
      rt.tracker->begin(frame, f.settings.params);
    }
  } catch (const gpusift::Error& error) {
    rt.tracker->reset();
    gpusift::gst::keypoint_base_post_error(base, error);
    return GST_KEYPOINT_FRAME_ERROR;
  }
  f.begun_at = TimingClock::now();
  return GST_KEYPOINT_FRAME_BEGUN;
}

// The second half: the tracks, the meta, the message.
GstFlowReturn TrackerWork::finish(GstBuffer* buffer) {
  GstKeypointBaseTransform* base = element_;
  GstKeypointTracker* self = GST_KEYPOINT_TRACKER(base);
  Runtime& rt = *self->runtime;
  const FrameInFlight& f = rt.in_flight;
  const TimingClock::time_point resumed = TimingClock::now();
  try {
    if (rt.worker)
      rt.worker->wait();
    else
      rt.tracker->finish(&rt.result);
  } catch (const gpusift::Error& error) {
    rt.tracker->reset();
    gpusift::gst::keypoint_base_post_error(base, error);
    return GST_FLOW_ERROR;
  }
  const TimingClock::time_point finished = TimingClock::now();
  // The frame's own time, not the frames upstream made in between: the first half, the
  // tracking (on the worker, its own time; here, up to now) and what follows.
  const double tracking_us =
      rt.worker ? rt.result.times.total : microseconds_between(resumed, finished);
  const double own_before_meta_us = microseconds_between(f.start, f.begun_at) + tracking_us;
  attach_meta(buffer, f.meta, rt.result, f.settings.params.model);
  GST_LOG_OBJECT(self, "frame %" G_GUINT64_FORMAT ": %d matches, %d inliers, %d tracks alive",
                 static_cast<guint64>(rt.result.frame_number), rt.result.matches, rt.result.inliers,
                 rt.result.tracks_alive);
  post_frame_message(
      self, buffer, f.settings.params.model,
      static_cast<gint64>(own_before_meta_us + microseconds_between(finished, TimingClock::now())));
  const double element_us = own_before_meta_us + microseconds_between(finished, TimingClock::now());
  add_timing(self, microseconds_between(f.start, f.framed),
             element_us - microseconds_between(f.start, f.framed) - rt.result.times.total,
             element_us);
  return GST_FLOW_OK;
}

// A flush or stop: the held frame's tracking is abandoned once its device work is done.
void TrackerWork::cancel() {
  Runtime& rt = runtime;
  if (rt.worker) {
    try {
      rt.worker->wait();
    } catch (const gpusift::Error&) {
    }
  }
  if (rt.tracker)
    rt.tracker->cancel();
}

// Two frames on the GPU backend when upstream is not live (tracker_settings.h); a worker tracks
// the held one.
int TrackerWork::frames_in_flight(int setting, bool upstream_live) {
  Runtime& rt = runtime;
  const int frames = gpusift::gst::frames_in_flight_for(
      setting, gpusift::gst::keypoint_base_backend(element_), upstream_live);
  if (frames > 1 && !rt.worker)
    rt.worker = std::make_unique<gpusift::tracking::TrackerWorker>();
  return frames;
}

// The matchers and the tracker on the backend the base class resolved.
bool TrackerWork::open() {
  GstKeypointBaseTransform* base = element_;
  GstKeypointTracker* self = GST_KEYPOINT_TRACKER(base);
  Runtime& rt = *self->runtime;
  rt.device_descriptors_requested = false;
  rt.layout = StreamLayout{};
  self->reset_requested->store(false);
  try {
    const bool on_gpu = gpusift::gst::keypoint_base_backend(base) == Backend::kCuda;
    const int device_id = gpusift::gst::keypoint_base_device_id(base);
    rt.matcher = on_gpu ? gpusift::gst::create_element_cuda_matcher(device_id)
                        : gpusift::create_matcher(Backend::kCpu);
    // On the GPU the keyframe's match runs beside the previous frame's, on a stream of its own.
    if (on_gpu)
      rt.keyframe_matcher = gpusift::gst::create_element_cuda_matcher(device_id);
    rt.tracker = std::make_unique<gpusift::tracking::KeypointTracker>(
        rt.matcher.get(), rt.next_track_id, rt.keyframe_matcher.get());
  } catch (const gpusift::Error& error) {
    gpusift::gst::keypoint_base_post_error(base, error);
    return false;
  }
  return true;
}

void TrackerWork::close() {
  Runtime& rt = runtime;
  rt.worker.reset();  // after the frame in hand, so that the tracker is free below
  if (rt.tracker) {
    rt.tracker->cancel();
    rt.next_track_id = rt.tracker->next_id();
  }
  rt.tracker.reset();
  rt.matcher.reset();
  rt.keyframe_matcher.reset();
  rt.result = gpusift::tracking::FrameResult{};
}

static gboolean gst_keypoint_tracker_set_caps(GstBaseTransform* trans, GstCaps* incaps,
                                              GstCaps* outcaps) {
  (void)outcaps;
  GstKeypointTracker* self = GST_KEYPOINT_TRACKER(trans);
  GST_DEBUG_OBJECT(self, "caps %" GST_PTR_FORMAT, static_cast<void*>(incaps));
  request_reset(self, "new caps");
  return TRUE;
}

static gboolean gst_keypoint_tracker_sink_event(GstBaseTransform* trans, GstEvent* event) {
  GstKeypointTracker* self = GST_KEYPOINT_TRACKER(trans);
  switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_STREAM_START:
      // A new stream: ask again for device descriptors.
      self->runtime->device_descriptors_requested = false;
      request_reset(self, "stream start");
      break;
    case GST_EVENT_FLUSH_STOP:
      request_reset(self, "flush");
      break;
    case GST_EVENT_SEGMENT:
      request_reset(self, "new segment");
      break;
    case GST_EVENT_GAP:
      request_reset(self, "gap");
      break;
    default:
      break;
  }
  // The base class lets a held frame leave first (it was begun before the reset is acted on).
  return GST_BASE_TRANSFORM_CLASS(gst_keypoint_tracker_parent_class)->sink_event(trans, event);
}

// What the element adds to each buffer (gst-inspect's description).
static const char kDescription[] =
    "Matches each frame's keypoints (GstKeypointsMeta) to the previous frame's and fits the "
    "camera motion by RANSAC; attaches to each buffer a GstKeypointsTracksMeta (a track id per "
    "keypoint and the frame's camera motion). Pixels pass unchanged";

static void gst_keypoint_tracker_class_init(GstKeypointTrackerClass* klass) {
  const auto info = gpusift::gst::KeypointElementClassInfo(
                        "keypointtracker", "Keypoint tracker", kDescription,
                        "Where matching and RANSAC run; auto takes the GPU when one is usable",
                        "matching keypoints")
                        .reading_descriptors("track", "untracked")
                        // One worker: the held frame finishes before the next begins.
                        .holding_frames(gpusift::gst::kTrackerFramesInFlightBlurb, false);
  gpusift::gst::keypoint_base_class_init(GST_KEYPOINT_BASE_TRANSFORM_CLASS(klass), info);
  gpusift::gst::install_tracker_properties(G_OBJECT_CLASS(klass));

  GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  trans_class->set_caps = GST_DEBUG_FUNCPTR(gst_keypoint_tracker_set_caps);
  trans_class->sink_event = GST_DEBUG_FUNCPTR(gst_keypoint_tracker_sink_event);
  GST_DEBUG_CATEGORY_INIT(gst_keypoint_tracker_debug, "keypointtracker", 0, "keypointtracker");
}

static void gst_keypoint_tracker_init(GstKeypointTracker* self) {
  auto* work = new TrackerWork(GST_KEYPOINT_BASE_TRANSFORM(self));
  self->settings = &work->settings;
  self->runtime = &work->runtime;
  self->reset_requested = &work->reset_requested;
  gpusift::gst::keypoint_base_set_work(GST_KEYPOINT_BASE_TRANSFORM(self), work);
}
