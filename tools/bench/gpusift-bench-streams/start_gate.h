// SPDX-License-Identifier: LGPL-2.1-or-later
// A gate that a fixed number of threads pass together (std::barrier is C++20).
#pragma once

#include <condition_variable>
#include <mutex>

namespace gpusift::tools {

class StartGate {
 public:
  explicit StartGate(int parties) : waiting_(parties) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (--waiting_ == 0)
      opened_.notify_all();
    else
      opened_.wait(lock, [&] { return waiting_ == 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable opened_;
  int waiting_;
};

}  // namespace gpusift::tools
