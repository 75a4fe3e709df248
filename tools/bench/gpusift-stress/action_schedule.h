// SPDX-License-Identifier: LGPL-2.1-or-later
// When each pipeline does what: a seeded draw per pipeline, so that a run is repeatable in the
// order and kind of its actions (their effect still depends on thread timing).
#pragma once

#include <cstdint>
#include <random>

namespace gpusift::stress {

enum class Action {
  kCapsChange,   // new size and/or format on the capsfilter: renegotiation mid-stream
  kSeek,         // flushing seek to a random position
  kPauseCycle,   // PLAYING -> PAUSED -> PLAYING
  kReadyCycle,   // PLAYING -> READY -> PLAYING
  kNullRestart,  // PLAYING -> NULL -> PLAYING, or a new pipeline in its place
  kEosRestart,   // EOS, wait for it at the sink, then restart
};

const char* action_name(Action action);

class ActionSchedule {
 public:
  // `pipeline` makes each pipeline's draws differ under one seed.
  ActionSchedule(uint32_t seed, int pipeline, double mean_interval);

  // Seconds until the next action: uniform over [s, 2 * mean - s], s = min(0.1 s, mean), so
  // that the mean is the option's and no two actions of a pipeline come at once.
  double next_interval();
  Action next_action();
  // An integer in [0, n).
  int pick(int n);
  // A number in [low, high).
  double uniform(double low, double high);

 private:
  std::mt19937 random_;
  double mean_interval_;
};

}  // namespace gpusift::stress
