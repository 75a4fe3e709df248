// SPDX-License-Identifier: LGPL-2.1-or-later
// A long video's progress on a terminal: one stderr line rewritten twice a second (frames done,
// of how many when the container says, frames per second). Silent when stderr is not a
// terminal, so that logs and pipes get only the summary.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace gpusift::tools {

class VideoProgress {
 public:
  explicit VideoProgress(int64_t stated_frames, std::FILE* terminal = nullptr);
  void frame_done(uint64_t frames);
  // Ends the progress line, so that what follows starts on a line of its own.
  void finish(uint64_t frames);

 private:
  void show(uint64_t frames);

  using Clock = std::chrono::steady_clock;
  std::FILE* terminal_;  // null: not shown
  int64_t stated_frames_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_shown_ = start_;
  bool shown_ = false;
};

}  // namespace gpusift::tools
