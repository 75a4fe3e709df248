// SPDX-License-Identifier: LGPL-2.1-or-later
// A fuzz input as a file the code under test opens by path, without touching the disk or
// leaving anything behind: an anonymous in-memory file (memfd), a regular file whose size the
// reader can check counts against; or a pipe, a stream of unknown size, named through
// /proc/self/fd (opening an anonymous pipe's read end there does not wait for a writer, unlike
// a named FIFO).
#pragma once

#include <fcntl.h>
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

// The input through a pipe whose write end is closed once every byte is in: the reader sees the
// bytes, then the end of the stream. Without a writer thread the input must fit the pipe's
// buffer (64 KiB by default, grown up to the system's limit when larger); ok() is false when it
// does not.
class InputPipe {
 public:
  InputPipe(const uint8_t* data, size_t size) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
      return;
    if (size > 65536)
      fcntl(fds[1], F_SETPIPE_SZ, static_cast<int>(size));
    size_t written = 0;
    while (written < size) {
      const ssize_t n = write(fds[1], data + written, size - written);
      if (n <= 0)
        break;
      written += static_cast<size_t>(n);
    }
    close(fds[1]);
    if (written < size) {
      close(fds[0]);
      return;
    }
    fd_ = fds[0];
  }
  ~InputPipe() {
    if (fd_ >= 0)
      close(fd_);
  }
  InputPipe(const InputPipe&) = delete;
  InputPipe& operator=(const InputPipe&) = delete;

  bool ok() const { return fd_ >= 0; }
  // Opened anew through this path, the read end is blocking (the reader waits for bytes).
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_ = -1;
};

}  // namespace gpusift::fuzz
