// SPDX-License-Identifier: LGPL-2.1-or-later
// Reads a features file (gpusift/features_file.h) record by record.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "gpusift/features_file.h"
#include "gpusift/keypoint.h"

namespace gpusift {

struct FeaturesFrame {
  FeaturesRecordHeader header;
  std::vector<Keypoint> keypoints;
  // header.descriptor_bytes() bytes: n_keypoints rows of float32 or uint8 values, as stored.
  std::vector<uint8_t> descriptors;
};

class FeaturesFileReader {
 public:
  // Opens `path` and checks its header. Throws FeaturesFileError: kOpenFailed, kReadFailed,
  // kNotAFeaturesFile (bad magic), kUnsupportedVersion, kTruncated (shorter than the header).
  explicit FeaturesFileReader(const std::string& path);
  ~FeaturesFileReader();
  FeaturesFileReader(const FeaturesFileReader&) = delete;
  FeaturesFileReader& operator=(const FeaturesFileReader&) = delete;

  // Reads the next record into `frame`; false at the end of the file after the last whole
  // record. Throws FeaturesFileError (kTruncated, kCorrupt, kReadFailed) naming the frame's
  // index and byte offset; the frames returned before stay valid.
  bool next(FeaturesFrame* frame);

  uint32_t version() const { return version_; }
  uint64_t frames_read() const { return frames_read_; }

 private:
  size_t read_up_to(void* data, size_t size);
  void read_exact(void* data, size_t size, const char* part);
  // `count` values into `array`, in one read from a file of known size, else as they come.
  template <class T>
  void read_array(std::vector<T>* array, uint64_t count, const char* part);
  void check_remaining(uint64_t bytes, const char* part);
  [[noreturn]] void fail(FeaturesFileErrorCode code, const std::string& problem) const;

  std::string path_;
  std::FILE* file_ = nullptr;
  bool size_known_ = false;
  uint64_t file_size_ = 0;
  uint64_t offset_ = 0;         // bytes consumed so far
  uint64_t record_offset_ = 0;  // where the record being read starts
  uint32_t version_ = 0;
  uint64_t frames_read_ = 0;
};

// Every frame of the file; throws as FeaturesFileReader does.
std::vector<FeaturesFrame> read_features_file(const std::string& path);

}  // namespace gpusift
