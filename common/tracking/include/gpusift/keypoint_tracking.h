/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The keypoint tracker apart from GStreamer: matches each frame's descriptors to the previous
// frame's through a gpusift::Matcher, fits the camera motion, keeps the cumulative motion since
// the first frame and gives every keypoint a track id.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "gpusift/keypoint.h"
#include "gpusift/matcher.h"

namespace gpusift::tracking {

using Matrix3 = std::array<double, 9>;  // row-major 3x3

constexpr Matrix3 kIdentity = {1, 0, 0, 0, 1, 0, 0, 0, 1};

struct TrackerParams {
  MatchParams match;
  MotionModel model = MotionModel::kHomography;
  float ransac_threshold = 3.0f;
  int max_missed = 5;  // frames a track survives without a match
  // Every 10th frame is a keyframe: a chain of 10x fewer motions to the first frame drifts far
  // less (0.4 px instead of 1.4 px at the corners after 90 frames of the main job's camera).
  int keyframe_interval = 10;  // 0: no keyframe
};

// One frame's features. `host` is always readable; `device` (optional, CUDA matcher only) holds
// the same rows in device memory. `owner` keeps both alive while the tracker holds the frame.
struct FrameFeatures {
  const Keypoint* keypoints = nullptr;
  int count = 0;
  DescriptorSetView host{nullptr, 0, 0, DescriptorFormat::kNone, MemoryKind::kHost};
  DescriptorSetView device{nullptr, 0, 0, DescriptorFormat::kNone, MemoryKind::kDevice};
  std::shared_ptr<const void> owner;
};

// Laid out as GstKeypointTrack, which the element copies it into.
struct TrackAssignment {
  uint64_t track_id;
  int32_t previous_index;  // -1: new, or resumed after missed frames
  uint32_t age;            // frames since the track began
};

// Wall-clock microseconds of process()'s phases, for profiling. A job is matching, pairs and
// motion together; its wait for the device is in its phase.
struct PhaseTimes {
  double begin = 0;     // enqueueing the frame's jobs
  double previous = 0;  // the job against the previous frame, from its start to its results
  double keyframe = 0;  // the wait for the keyframe's job after that (it runs alongside)
  double resume = 0;    // lost tracks matched again, and the lost tracks moved on
  double total = 0;     // begin and finish together
};

struct FrameResult {
  std::vector<TrackAssignment> tracks;  // one per keypoint
  uint64_t frame_number = 0;            // since the last reset
  bool motion_valid = false;
  Matrix3 motion = kIdentity;  // previous -> this frame
  bool cumulative_valid = true;
  Matrix3 cumulative = kIdentity;  // first -> this frame
  int matches = 0;                 // to the previous frame, one per previous keypoint at most
  int inliers = 0;
  int resumed = 0;  // tracks matched again after missed frames
  int new_tracks = 0;
  int ended_tracks = 0;
  int tracks_alive = 0;
  int keyframe_matches = 0;  // to the keyframe, when one is in use
  int keyframe_inliers = 0;
  bool keyframe = false;               // this frame became the keyframe
  bool descriptors_on_device = false;  // matched to the previous frame in device memory
  PhaseTimes times;
};

class KeypointTracker {
 public:
  // Ids are given out from first_id up. With a keyframe_matcher (on another stream), the match
  // to the keyframe runs beside the match to the previous frame.
  explicit KeypointTracker(Matcher* matcher, uint64_t first_id = 1,
                           Matcher* keyframe_matcher = nullptr);
  ~KeypointTracker();
  KeypointTracker(const KeypointTracker&) = delete;
  KeypointTracker& operator=(const KeypointTracker&) = delete;

  // Forgets every track, the motion and the keyframe: the next frame is a first frame. Ids keep
  // counting up.
  void reset();
  // Throws gpusift::Error from the matcher. A frame whose descriptor format or size differs
  // from the previous frame's starts over as after reset().
  void process(const FrameFeatures& frame, const TrackerParams& params, FrameResult* out);

  // process() in two halves, for callers that do other work while the GPU matches: begin
  // enqueues the frame's matching, finish waits for it and assigns the tracks. One frame at a
  // time (kInvalidArgument otherwise); `frame` must stay valid until finish. After an error
  // no frame is begun.
  void begin(const FrameFeatures& frame, const TrackerParams& params);
  void finish(FrameResult* out);
  bool pending() const;
  // Drops a begun frame (after its device work is done); reset() does too.
  void cancel();

  uint64_t next_id() const { return next_id_; }

 private:
  void finish_begun(FrameResult* out);
  struct State;
  Matcher* matcher_;
  Matcher* keyframe_matcher_;
  uint64_t next_id_;
  std::unique_ptr<State> state_;
};

}  // namespace gpusift::tracking
