// SPDX-License-Identifier: LGPL-2.1-or-later
// Memory is sampled between actions, never in the middle of one: a pipeline half torn down (its
// CUDA context gone, its buffers freed) or half built would make the sample say more about the
// moment than about a leak. Pipelines enter the gate for each action; the sampler closes it,
// waits until no action is under way, samples and opens it again.
#pragma once

#include <glib.h>

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace gpusift::stress {

class ActionGate {
 public:
  // Around each action of a pipeline; enter() waits while a sample is being taken.
  void enter();
  void leave();

  // Around a sample: close() returns once no action is under way, and holds new ones back
  // until open(). After `timeout_us` it returns false, the gate closed all the same: an action
  // that hangs is the controller's failure to report, and the sample goes on without it.
  bool close(gint64 timeout_us);
  void open();

 private:
  std::mutex lock_;
  std::condition_variable changed_;
  int under_way_ = 0;
  bool closed_ = false;
};

// enter() and leave() of one action, leave() on every path out.
class GateScope {
 public:
  explicit GateScope(ActionGate& gate) : gate_(gate) { gate_.enter(); }
  ~GateScope() { gate_.leave(); }
  GateScope(const GateScope&) = delete;
  GateScope& operator=(const GateScope&) = delete;

 private:
  ActionGate& gate_;
};

}  // namespace gpusift::stress
