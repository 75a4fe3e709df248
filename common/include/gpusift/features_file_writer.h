// SPDX-License-Identifier: LGPL-2.1-or-later
// Writes a features file (gpusift/features_file.h) one record at a time.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "gpusift/features.h"
#include "gpusift/features_file.h"
#include "gpusift/keypoint.h"
#include "gpusift/method.h"

namespace gpusift {

class FeaturesFileWriter {
 public:
  // Creates or truncates `path` and writes the file header, so that a stream without frames
  // still leaves a valid file. Throws FeaturesFileError: kOpenFailed, or kWriteFailed when the
  // header does not fit (a full disk, /dev/full).
  explicit FeaturesFileWriter(const std::string& path);
  // Closes without reporting; call close() to see the result.
  ~FeaturesFileWriter();
  FeaturesFileWriter(const FeaturesFileWriter&) = delete;
  FeaturesFileWriter& operator=(const FeaturesFileWriter&) = delete;

  // Appends one record of header.n_keypoints keypoints and header.descriptor_bytes() bytes of
  // descriptors (null when there are none). There is no user-space buffer: the record is with
  // the kernel when this returns, so a killed process loses no frame already written, and a
  // failure is seen at the frame that causes it. Throws FeaturesFileError: kInvalidArgument
  // (nothing written), or kWriteFailed, after which the file is cut back to its last whole
  // record where it can be (a regular file) and every later call throws again.
  void write_frame(const FeaturesRecordHeader& header, const Keypoint* keypoints,
                   const void* descriptors);
  void write_frame(const Features& features, Method method, int width, int height, uint64_t pts);

  // fsync(): write-back errors of the records so far surface here. A file that cannot be synced
  // (a pipe, a device) is not an error. Throws FeaturesFileError(kWriteFailed).
  void sync();

  // Closes the file; a failing close() throws FeaturesFileError(kWriteFailed). Later calls do
  // nothing.
  void close();

  const std::string& path() const { return path_; }
  uint64_t frames_written() const { return frames_written_; }

 private:
  void check_writable() const;
  void write_all(const void* data, size_t size);
  [[noreturn]] void fail(int error_number);

  std::string path_;
  int fd_ = -1;
  bool regular_file_ = false;
  bool failed_ = false;
  off_t committed_bytes_ = 0;  // the file's length up to the end of the last whole record
  uint64_t frames_written_ = 0;
};

}  // namespace gpusift
