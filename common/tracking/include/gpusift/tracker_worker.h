/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One job at a time on a thread of its own: keypointtracker with two frames in flight tracks a
 * frame there while the streaming thread goes back upstream for the next one. */
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace gpusift::tracking {

class TrackerWorker {
 public:
  TrackerWorker();
  ~TrackerWorker();  // waits for the job in hand, then ends the thread
  TrackerWorker(const TrackerWorker&) = delete;
  TrackerWorker& operator=(const TrackerWorker&) = delete;

  // Starts `job`; the previous one must have been waited for.
  void submit(std::function<void()> job);
  // Waits for the job in hand (none: returns at once); rethrows what it threw.
  void wait();

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::function<void()> job_;
  bool busy_ = false;
  bool quit_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace gpusift::tracking
