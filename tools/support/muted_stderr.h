// SPDX-License-Identifier: LGPL-2.1-or-later
// Silences stderr for a scope, at the file-descriptor level.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

namespace gpusift::tools {

// libpng prints its warnings (such as "iCCP: known incorrect sRGB profile") straight to stderr;
// muting them keeps stderr to our own lines, and a file that fails to decode is still reported.
class MutedStderr {
 public:
  MutedStderr() {
    std::fflush(stderr);
    saved_ = dup(STDERR_FILENO);
    const int null_device = open("/dev/null", O_WRONLY);
    if (null_device < 0)
      return;
    if (saved_ >= 0)
      dup2(null_device, STDERR_FILENO);
    close(null_device);
  }
  ~MutedStderr() {
    if (saved_ < 0)
      return;
    std::fflush(stderr);
    dup2(saved_, STDERR_FILENO);
    close(saved_);
  }
  MutedStderr(const MutedStderr&) = delete;
  MutedStderr& operator=(const MutedStderr&) = delete;

 private:
  int saved_ = -1;
};

}  // namespace gpusift::tools
