// SPDX-License-Identifier: LGPL-2.1-or-later
#include "action_gate.h"

namespace gpusift::stress {

void ActionGate::enter() {
  std::unique_lock<std::mutex> lock(lock_);
  changed_.wait(lock, [this] { return !closed_; });
  ++under_way_;
}

void ActionGate::leave() {
  std::lock_guard<std::mutex> lock(lock_);
  --under_way_;
  changed_.notify_all();
}

bool ActionGate::close(gint64 timeout_us) {
  std::unique_lock<std::mutex> lock(lock_);
  closed_ = true;
  return changed_.wait_for(lock, std::chrono::microseconds(timeout_us),
                           [this] { return under_way_ == 0; });
}

void ActionGate::open() {
  std::lock_guard<std::mutex> lock(lock_);
  closed_ = false;
  changed_.notify_all();
}

}  // namespace gpusift::stress
