// SPDX-License-Identifier: LGPL-2.1-or-later
#include "publish_queue.h"

#include <utility>

namespace gpusift::mqtt {

namespace {
// Mids are 16-bit and reused: a written-off mid is forgotten after this many, long after any
// confirmation of it could come.
constexpr size_t kWrittenOffMemory = 4096;
}  // namespace

void PublishQueue::push(PublishMessage message) {
  ++frames_;
  if (queue_.size() >= capacity_) {
    queue_.pop_front();
    ++dropped_;
  }
  queue_.push_back(std::move(message));
}

PublishMessage PublishQueue::take() {
  PublishMessage message = std::move(queue_.front());
  queue_.pop_front();
  taking_ = true;
  return message;
}

void PublishQueue::handed_over(int mid) {
  taking_ = false;
  if (early_.erase(mid) == 0)
    pending_.insert(mid);
}

void PublishQueue::put_back(PublishMessage message) {
  taking_ = false;
  if (queue_.size() >= capacity_) {
    ++dropped_;  // it is older than everything queued
    return;
  }
  queue_.push_front(std::move(message));
}

void PublishQueue::refused() {
  taking_ = false;
  ++dropped_;
}

void PublishQueue::acked(int mid) {
  if (pending_.erase(mid) > 0) {
    ++sent_;
  } else if (written_off_.erase(mid) > 0) {
    // Counted as dropped already.
  } else if (taking_) {
    early_.insert(mid);
    ++sent_;
  }
}

void PublishQueue::write_off_pending() {
  if (written_off_.size() > kWrittenOffMemory)
    written_off_.clear();
  dropped_ += pending_.size();
  written_off_.insert(pending_.begin(), pending_.end());
  pending_.clear();
}

void PublishQueue::lose_handed_over() {
  write_off_pending();
}

void PublishQueue::drop_all() {
  dropped_ += queue_.size();
  queue_.clear();
  write_off_pending();
}

PublishCounts PublishQueue::counts() const {
  PublishCounts c;
  c.frames = frames_;
  c.sent = sent_;
  c.dropped = dropped_;
  c.queued = queue_.size();
  // A message confirmed before its hand-over was reported is sent already.
  const size_t taken = taking_ && early_.empty() ? 1 : 0;
  c.in_flight = pending_.size() + taken;
  return c;
}

}  // namespace gpusift::mqtt
