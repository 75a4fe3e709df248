// SPDX-License-Identifier: LGPL-2.1-or-later
#include "video_progress.h"

#include <unistd.h>

namespace gpusift::tools {

namespace {

constexpr auto kInterval = std::chrono::milliseconds(500);

}  // namespace

VideoProgress::VideoProgress(int64_t stated_frames, std::FILE* terminal)
    : terminal_(terminal != nullptr ? terminal : (isatty(STDERR_FILENO) ? stderr : nullptr)),
      stated_frames_(stated_frames) {}

void VideoProgress::frame_done(uint64_t frames) {
  if (terminal_ == nullptr || Clock::now() - last_shown_ < kInterval)
    return;
  show(frames);
}

void VideoProgress::finish(uint64_t frames) {
  if (terminal_ == nullptr || !shown_)
    return;
  show(frames);
  std::fputc('\n', terminal_);
}

void VideoProgress::show(uint64_t frames) {
  const Clock::time_point now = Clock::now();
  const double seconds = std::chrono::duration<double>(now - start_).count();
  const double fps = seconds > 0 ? static_cast<double>(frames) / seconds : 0.0;
  if (stated_frames_ > 0)
    std::fprintf(terminal_, "\rgpusift-extract: frame %llu of %lld (%.1f fps)   ",
                 static_cast<unsigned long long>(frames), static_cast<long long>(stated_frames_),
                 fps);
  else
    std::fprintf(terminal_, "\rgpusift-extract: frame %llu (%.1f fps)   ",
                 static_cast<unsigned long long>(frames), fps);
  std::fflush(terminal_);
  last_shown_ = now;
  shown_ = true;
}

}  // namespace gpusift::tools
