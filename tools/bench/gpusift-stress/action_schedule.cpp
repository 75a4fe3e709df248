// SPDX-License-Identifier: LGPL-2.1-or-later
#include "action_schedule.h"

#include <algorithm>

namespace gpusift::stress {

namespace {

// Caps changes and seeks are cheap and common in real pipelines; the stops cost an element's
// whole set-up (a CUDA context, the matcher's reference), so they come less often.
struct Weighted {
  Action action;
  int weight;
};
constexpr Weighted kActions[] = {
    {Action::kCapsChange, 30}, {Action::kSeek, 25},        {Action::kPauseCycle, 12},
    {Action::kReadyCycle, 10}, {Action::kNullRestart, 10}, {Action::kEosRestart, 13},
};

}  // namespace

const char* action_name(Action action) {
  switch (action) {
    case Action::kCapsChange:
      return "caps change";
    case Action::kSeek:
      return "seek";
    case Action::kPauseCycle:
      return "PAUSED cycle";
    case Action::kReadyCycle:
      return "READY cycle";
    case Action::kNullRestart:
      return "NULL restart";
    case Action::kEosRestart:
      return "EOS restart";
  }
  return "?";
}

ActionSchedule::ActionSchedule(uint32_t seed, int pipeline, double mean_interval)
    : mean_interval_(mean_interval) {
  std::seed_seq sequence{seed, static_cast<uint32_t>(pipeline), 0x51f7u};
  random_.seed(sequence);
}

double ActionSchedule::next_interval() {
  const double shortest = std::min(0.1, mean_interval_);
  return uniform(shortest, 2 * mean_interval_ - shortest);
}

Action ActionSchedule::next_action() {
  int total = 0;
  for (const Weighted& w : kActions)
    total += w.weight;
  int draw = pick(total);
  for (const Weighted& w : kActions) {
    if (draw < w.weight)
      return w.action;
    draw -= w.weight;
  }
  return kActions[0].action;
}

int ActionSchedule::pick(int n) {
  return std::uniform_int_distribution<int>(0, n - 1)(random_);
}

double ActionSchedule::uniform(double low, double high) {
  return std::uniform_real_distribution<double>(low, high)(random_);
}

}  // namespace gpusift::stress
