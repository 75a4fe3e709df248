// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/tracker_worker.h"

#include <utility>

namespace gpusift::tracking {

TrackerWorker::TrackerWorker() : thread_([this] { run(); }) {}

TrackerWorker::~TrackerWorker() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return !busy_; });
    quit_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void TrackerWorker::submit(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = std::move(job);
    error_ = nullptr;
    busy_ = true;
  }
  changed_.notify_all();
}

void TrackerWorker::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return !busy_; });
  if (error_)
    std::rethrow_exception(std::exchange(error_, nullptr));
}

void TrackerWorker::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return busy_ || quit_; });
    if (quit_ && !busy_)
      return;
    std::function<void()> job = std::move(job_);
    lock.unlock();
    std::exception_ptr error;
    try {
      job();
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    error_ = error;
    busy_ = false;
    changed_.notify_all();
  }
}

}  // namespace gpusift::tracking
