// SPDX-License-Identifier: LGPL-2.1-or-later
// A fuzz input as a file the code under test opens by path: an anonymous in-memory file
// (memfd), named through /proc/self/fd, so that no disk is touched and nothing is left behind.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace gpusift::fuzz {

class InputFile {
 public:
  InputFile(const uint8_t* data, size_t size) : fd_(memfd_create("gpusift-fuzz", MFD_CLOEXEC)) {
    size_t written = 0;
    while (fd_ >= 0 && written < size) {
      const ssize_t n = write(fd_, data + written, size - written);
      if (n <= 0)
        break;
      written += static_cast<size_t>(n);
    }
  }
  ~InputFile() {
    if (fd_ >= 0)
      close(fd_);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  bool ok() const { return fd_ >= 0; }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

}  // namespace gpusift::fuzz
