// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/keypoint_tracking.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "gpusift/error.h"

namespace gpusift::tracking {

namespace {

using Point = PointXY;

using Clock = std::chrono::steady_clock;

// Microseconds from `start` to now; moves `start` to now.
double lap_us(Clock::time_point* start) {
  const Clock::time_point now = Clock::now();
  const double us = std::chrono::duration<double, std::micro>(now - *start).count();
  *start = now;
  return us;
}

struct TrackState {
  uint64_t id;
  uint64_t birth;  // frame number of the track's first frame
};

// A track without a match in the last frame(s): its last descriptor waits in the lost rows and its
// position follows the camera so that a match can be checked against where it should be now.
struct LostTrack {
  TrackState track;
  int missed;
  Point position;  // in the latest frame's coordinates
};

// What the tracker keeps of an earlier frame.
struct KeptFrame {
  DescriptorSetView host{nullptr, 0, 0, DescriptorFormat::kNone, MemoryKind::kHost};
  DescriptorSetView device{nullptr, 0, 0, DescriptorFormat::kNone, MemoryKind::kDevice};
  std::shared_ptr<const void> owner;
  std::vector<Point> points;
  std::vector<TrackState> tracks;  // the previous frame's only
  uint64_t frame_number = 0;
  Matrix3 cumulative = kIdentity;
  bool cumulative_valid = true;

  // Takes frame_points' storage.
  void keep(const FrameFeatures& frame, std::vector<Point>* frame_points) {
    host = frame.host;
    device = frame.device;
    owner = frame.owner;
    points.swap(*frame_points);
  }
  void clear() { *this = KeptFrame{}; }
};

struct Motion {
  bool valid = false;
  Matrix3 matrix = kIdentity;
  int inliers = 0;
  std::vector<uint8_t> inlier_mask;
};

// Fewer inliers than twice a minimal sample (three for a translation) is too little support to
// trust: a fit through its own sample always has that sample as inliers.
int min_inliers(MotionModel model) {
  switch (model) {
    case MotionModel::kNone:
      return 0;
    case MotionModel::kTranslation:
      return 3;
    case MotionModel::kSimilarity:
      return 4;
    case MotionModel::kAffine:
      return 6;
    case MotionModel::kHomography:
      return 8;
  }
  return 0;
}

Matrix3 multiply(const Matrix3& a, const Matrix3& b) {
  Matrix3 c{};
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k)
      for (int col = 0; col < 3; ++col)
        c[r * 3 + col] += a[r * 3 + k] * b[k * 3 + col];
  return c;
}

Point apply(const Matrix3& m, Point p) {
  const double w = m[6] * p.x + m[7] * p.y + m[8];
  return Point{static_cast<float>((m[0] * p.x + m[1] * p.y + m[2]) / w),
               static_cast<float>((m[3] * p.x + m[4] * p.y + m[5]) / w)};
}

size_t row_bytes(const DescriptorSetView& view) {
  const size_t value = view.format == DescriptorFormat::kUint8 ? 1 : sizeof(float);
  return static_cast<size_t>(view.size) * value;
}

bool same_layout(const DescriptorSetView& a, const DescriptorSetView& b) {
  return a.format == b.format && a.size == b.size;
}

// Matching is against whole sets, in device memory when the matcher is on the GPU and both sets
// have a device copy. Pairs map the kept frame's points onto this frame's; a train row continues
// at most one track.
MatchAndFitRequest job_request(const Matcher& matcher, const KeptFrame& train,
                               const FrameFeatures& query, const std::vector<Point>& query_points,
                               const TrackerParams& p, uint64_t seed) {
  const bool device = matcher.backend() == Backend::kCuda && train.device.data && query.device.data;
  MatchAndFitRequest request;
  request.query = device ? query.device : query.host;
  request.train = device ? train.device : train.host;
  request.query_points = query_points.data();
  request.train_points = train.points.data();
  request.match = p.match;
  request.one_query_per_train = true;
  request.pairs_from_train = true;
  request.ransac.model = p.model;
  request.ransac.threshold = p.ransac_threshold;
  request.ransac.seed = seed;
  return request;
}

// A job begun on a matcher, finished exactly once: by finish(), or (its results dropped) when an
// error leaves the scope first.
class Job {
 public:
  Job() = default;
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;
  ~Job() { cancel(); }
  void begin(Matcher* matcher, const MatchAndFitRequest& request, bool* on_device) {
    *on_device = request.query.memory == MemoryKind::kDevice;
    matcher->begin_match_and_fit(request);
    matcher_ = matcher;
  }
  bool pending() const { return matcher_ != nullptr; }
  // Waits for the job and drops its results.
  void cancel() {
    Matcher* matcher = matcher_;
    matcher_ = nullptr;
    if (!matcher)
      return;
    try {
      MatchAndFitResult dropped;
      matcher->finish_match_and_fit(&dropped);
    } catch (const Error&) {
    }
  }
  void finish(MatchAndFitResult* out) {
    Matcher* matcher = matcher_;
    matcher_ = nullptr;
    matcher->finish_match_and_fit(out);
  }

 private:
  Matcher* matcher_ = nullptr;
};

// The fitted motion, when there is enough support for it.
Motion motion_of(const MatchAndFitResult& job, MotionModel model) {
  Motion motion;
  if (model == MotionModel::kNone || !job.motion.found || job.motion.inliers < min_inliers(model))
    return motion;
  motion.valid = true;
  std::copy(job.motion.matrix, job.motion.matrix + 9, motion.matrix.begin());
  motion.inliers = job.motion.inliers;
  motion.inlier_mask = job.motion.inlier_mask;
  return motion;
}

}  // namespace

// A frame between begin() and finish().
struct Begun {
  bool active = false;
  FrameFeatures frame;
  TrackerParams params;
  uint64_t n = 0;
  bool keyframes = false, use_keyframe = false, on_device = false;
  uint64_t keyframe_seed = 0;
  Job previous_job, keyframe_job;
  double begin_us = 0;
};

struct KeypointTracker::State {
  bool started = false;
  uint64_t frame_number = 0;
  KeptFrame previous;
  KeptFrame keyframe;
  bool has_keyframe = false;
  std::vector<LostTrack> lost;
  std::vector<uint8_t> lost_rows;  // lost.size() descriptor rows
  // This frame's, kept between frames for their storage.
  std::vector<TrackState> current;
  std::vector<uint8_t> assigned;
  std::vector<Point> points;  // this frame's keypoints
  MatchAndFitResult to_previous, to_keyframe;
  std::vector<Match> matches;      // of lost tracks
  std::vector<uint8_t> continued;  // per previous keypoint
  std::vector<uint8_t> query_rows;
  std::vector<int> query_keypoints;
  std::vector<LostTrack> next_lost;
  std::vector<uint8_t> next_lost_rows;
  Begun begun;

  void resume_lost_tracks(Matcher* matcher, const FrameFeatures& frame, const TrackerParams& p,
                          const Motion& motion, FrameResult* out);
  void update_lost_tracks(const TrackerParams& p, const Motion& motion, FrameResult* out);
};

// Keypoints left without a track try the tracks missed in the last frames: a mutual nearest
// neighbour that passes the ratio test and, when this frame's motion is known, lies where it puts
// the lost track (within twice the RANSAC threshold, since the track's position has been carried
// through frames of estimated motion). Without a motion (model none, or a frame too different
// to fit one) the descriptors decide alone.
void KeypointTracker::State::resume_lost_tracks(Matcher* matcher, const FrameFeatures& frame,
                                                const TrackerParams& p, const Motion& motion,
                                                FrameResult* out) {
  if (lost.empty())
    return;
  const size_t bytes = row_bytes(frame.host);
  const auto* rows = static_cast<const uint8_t*>(frame.host.data);
  query_rows.clear();
  query_keypoints.clear();
  for (int i = 0; i < frame.count; ++i) {
    if (assigned[static_cast<size_t>(i)])
      continue;
    query_rows.insert(query_rows.end(), rows + static_cast<size_t>(i) * bytes,
                      rows + static_cast<size_t>(i + 1) * bytes);
    query_keypoints.push_back(i);
  }
  if (query_keypoints.empty())
    return;
  const DescriptorSetView query{query_rows.data(), static_cast<int>(query_keypoints.size()),
                                frame.host.size, frame.host.format, MemoryKind::kHost};
  const DescriptorSetView train{lost_rows.data(), static_cast<int>(lost.size()), frame.host.size,
                                frame.host.format, MemoryKind::kHost};
  MatchParams params = p.match;
  params.cross_check = true;
  matcher->match(query, train, params, &matches);
  const float gate = 2.0f * p.ransac_threshold;
  for (const Match& m : matches) {
    LostTrack& track = lost[static_cast<size_t>(m.train)];
    const int keypoint = query_keypoints[static_cast<size_t>(m.query)];
    if (motion.valid) {
      const Point expected = apply(motion.matrix, track.position);
      const Keypoint& found = frame.keypoints[keypoint];
      if (!(std::hypot(expected.x - found.x, expected.y - found.y) < gate))
        continue;
    }
    current[static_cast<size_t>(keypoint)] = track.track;
    assigned[static_cast<size_t>(keypoint)] = 1;
    track.missed = -1;  // resumed: leaves the lost tracks below
    ++out->resumed;
  }
}

// The previous frame's keypoints without a match join the lost tracks; lost tracks missed for
// more than max_missed frames end. Positions move on with the camera.
void KeypointTracker::State::update_lost_tracks(const TrackerParams& p, const Motion& motion,
                                                FrameResult* out) {
  const size_t bytes = row_bytes(previous.host);
  next_lost.clear();
  next_lost_rows.clear();
  auto carry = [&](const LostTrack& track, const uint8_t* row) {
    if (track.missed > p.max_missed) {
      ++out->ended_tracks;
      return;
    }
    LostTrack moved = track;
    if (motion.valid)
      moved.position = apply(motion.matrix, track.position);
    next_lost.push_back(moved);
    next_lost_rows.insert(next_lost_rows.end(), row, row + bytes);
  };
  for (size_t i = 0; i < lost.size(); ++i) {
    if (lost[i].missed < 0)
      continue;
    LostTrack track = lost[i];
    ++track.missed;
    carry(track, lost_rows.data() + i * bytes);
  }
  const auto* rows = static_cast<const uint8_t*>(previous.host.data);
  for (size_t i = 0; i < continued.size(); ++i) {
    if (!continued[i])
      carry(LostTrack{previous.tracks[i], 1, previous.points[i]}, rows + i * bytes);
  }
  lost.swap(next_lost);
  lost_rows.swap(next_lost_rows);
}

KeypointTracker::KeypointTracker(Matcher* matcher, uint64_t first_id, Matcher* keyframe_matcher)
    : matcher_(matcher),
      keyframe_matcher_(keyframe_matcher),
      next_id_(first_id),
      state_(new State) {}

KeypointTracker::~KeypointTracker() = default;

void KeypointTracker::reset() {
  State& s = *state_;
  cancel();
  s.started = false;
  s.frame_number = 0;
  s.previous.clear();
  s.keyframe.clear();
  s.has_keyframe = false;
  s.lost.clear();
  s.lost_rows.clear();
}

bool KeypointTracker::pending() const {
  return state_->begun.active;
}

void KeypointTracker::cancel() {
  State& s = *state_;
  s.begun.previous_job.cancel();
  s.begun.keyframe_job.cancel();
  s.begun.active = false;
  s.begun.frame = FrameFeatures{};
}

void KeypointTracker::process(const FrameFeatures& frame, const TrackerParams& p,
                              FrameResult* out) {
  begin(frame, p);
  finish(out);
}

void KeypointTracker::begin(const FrameFeatures& frame, const TrackerParams& p) {
  const Clock::time_point start = Clock::now();
  State& s = *state_;
  if (s.begun.active)
    throw Error(ErrorCode::kInvalidArgument, "keypoint tracker: a frame is already begun");
  if (s.started && !same_layout(s.previous.host, frame.host))
    reset();
  Begun& b = s.begun;
  b.frame = frame;
  b.params = p;
  b.n = s.started ? s.frame_number + 1 : 0;
  s.points.resize(static_cast<size_t>(frame.count));
  for (int i = 0; i < frame.count; ++i)
    s.points[static_cast<size_t>(i)] = Point{frame.keypoints[i].x, frame.keypoints[i].y};

  // Both jobs are begun before either is waited for, so that on the GPU they overlap.
  b.keyframes = p.keyframe_interval > 0 && p.model != MotionModel::kNone;
  b.use_keyframe = b.keyframes && s.has_keyframe && s.keyframe.frame_number + 1 < b.n;
  b.keyframe_seed = b.n ^ UINT64_C(0x9e3779b97f4a7c15);
  b.on_device = false;
  try {
    if (s.started)
      b.previous_job.begin(matcher_, job_request(*matcher_, s.previous, frame, s.points, p, b.n),
                           &b.on_device);
    if (b.use_keyframe && keyframe_matcher_) {
      bool keyframe_on_device = false;
      b.keyframe_job.begin(
          keyframe_matcher_,
          job_request(*keyframe_matcher_, s.keyframe, frame, s.points, p, b.keyframe_seed),
          &keyframe_on_device);
    }
  } catch (const Error&) {
    cancel();
    throw;
  }
  b.active = true;
  b.begin_us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

void KeypointTracker::finish(FrameResult* out) {
  State& s = *state_;
  if (!s.begun.active)
    throw Error(ErrorCode::kInvalidArgument, "keypoint tracker: no frame is begun");
  try {
    finish_begun(out);
  } catch (const Error&) {
    cancel();
    throw;
  }
  s.begun.active = false;
  s.begun.frame = FrameFeatures{};
}

void KeypointTracker::finish_begun(FrameResult* out) {
  const Clock::time_point begin = Clock::now();
  State& s = *state_;
  Begun& b = s.begun;
  const FrameFeatures& frame = b.frame;
  const TrackerParams& p = b.params;
  const uint64_t n = b.n;
  std::vector<TrackAssignment> tracks = std::move(out->tracks);
  *out = FrameResult{};
  out->tracks = std::move(tracks);
  out->tracks.assign(static_cast<size_t>(frame.count), TrackAssignment{0, -1, 0});
  out->frame_number = n;
  out->descriptors_on_device = b.on_device;
  s.current.assign(static_cast<size_t>(frame.count), TrackState{0, n});
  s.assigned.assign(static_cast<size_t>(frame.count), 0);
  Clock::time_point start = begin;

  Matrix3 cumulative = kIdentity;
  bool cumulative_valid = true;
  if (s.started) {
    b.previous_job.finish(&s.to_previous);
    out->times.previous = lap_us(&start);
    const Motion motion = motion_of(s.to_previous, p.model);
    const std::vector<Match>& matches = s.to_previous.matches;
    out->matches = static_cast<int>(matches.size());
    out->inliers = motion.inliers;
    out->motion_valid = motion.valid;
    out->motion = motion.matrix;
    s.continued.assign(static_cast<size_t>(s.previous.host.count), 0);
    for (size_t k = 0; k < matches.size(); ++k) {
      // Without a fitted motion there is nothing to call an outlier.
      if (motion.valid && !motion.inlier_mask[k])
        continue;
      const Match& m = matches[k];
      s.current[static_cast<size_t>(m.query)] = s.previous.tracks[static_cast<size_t>(m.train)];
      s.assigned[static_cast<size_t>(m.query)] = 1;
      out->tracks[static_cast<size_t>(m.query)].previous_index = m.train;
      s.continued[static_cast<size_t>(m.train)] = 1;
    }
    cumulative =
        motion.valid ? multiply(motion.matrix, s.previous.cumulative) : s.previous.cumulative;
    cumulative_valid = motion.valid && s.previous.cumulative_valid;
    s.resume_lost_tracks(matcher_, frame, p, motion, out);
    s.update_lost_tracks(p, motion, out);
    out->times.resume = lap_us(&start);
  }

  if (b.use_keyframe) {
    if (!b.keyframe_job.pending()) {
      bool keyframe_on_device = false;
      b.keyframe_job.begin(matcher_,
                           job_request(*matcher_, s.keyframe, frame, s.points, p, b.keyframe_seed),
                           &keyframe_on_device);
    }
    b.keyframe_job.finish(&s.to_keyframe);
    out->times.keyframe = lap_us(&start);
    const Motion to_keyframe = motion_of(s.to_keyframe, p.model);
    out->keyframe_matches = static_cast<int>(s.to_keyframe.matches.size());
    out->keyframe_inliers = to_keyframe.inliers;
    // One step from the keyframe instead of the frame-to-frame chain since it: less drift.
    if (to_keyframe.valid) {
      cumulative = multiply(to_keyframe.matrix, s.keyframe.cumulative);
      cumulative_valid = s.keyframe.cumulative_valid;
    }
  }

  for (size_t i = 0; i < s.current.size(); ++i) {
    if (!s.assigned[i]) {
      s.current[i] = TrackState{next_id_++, n};
      ++out->new_tracks;
    }
    out->tracks[i].track_id = s.current[i].id;
    out->tracks[i].age = static_cast<uint32_t>(n - s.current[i].birth);
  }
  out->cumulative = cumulative;
  out->cumulative_valid = cumulative_valid;
  out->tracks_alive = frame.count + static_cast<int>(s.lost.size());

  s.started = true;
  s.frame_number = n;
  s.previous.keep(frame, &s.points);
  s.previous.tracks.swap(s.current);
  s.previous.frame_number = n;
  s.previous.cumulative = cumulative;
  s.previous.cumulative_valid = cumulative_valid;
  if (b.keyframes && n % static_cast<uint64_t>(p.keyframe_interval) == 0) {
    s.keyframe = s.previous;
    s.keyframe.tracks.clear();
    s.has_keyframe = true;
    out->keyframe = true;
  }
  out->times.begin = b.begin_us;
  out->times.total =
      b.begin_us + std::chrono::duration<double, std::micro>(Clock::now() - begin).count();
}

}  // namespace gpusift::tracking
