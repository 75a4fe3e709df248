// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/features_file_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace gpusift {

namespace {

// Without a file size to check against (a pipe), a count past this is taken for corruption
// rather than read.
constexpr uint64_t kMaxUncheckedRecordBytes = uint64_t{1} << 31;
// Without a file size, a record's arrays grow by at most this much at a time as their bytes
// come, so that a count the stream cannot back costs no more memory than the bytes it has (a
// 76-byte header claiming a gigabyte of keypoints used to allocate it up front).
constexpr size_t kUncheckedReadChunkBytes = size_t{1} << 20;

uint32_t get_u32(const unsigned char* at) {
  uint32_t value;
  std::memcpy(&value, at, sizeof value);
  return value;
}

uint64_t get_u64(const unsigned char* at) {
  uint64_t value;
  std::memcpy(&value, at, sizeof value);
  return value;
}

}  // namespace

FeaturesFileReader::FeaturesFileReader(const std::string& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "rb");
  int open_errno = errno;
  struct stat info {};
  if (file_ != nullptr && fstat(fileno(file_), &info) == 0) {
    if (S_ISDIR(info.st_mode)) {
      std::fclose(file_);
      file_ = nullptr;
      open_errno = EISDIR;
    }
    size_known_ = S_ISREG(info.st_mode);
    file_size_ = static_cast<uint64_t>(info.st_size);
  }
  if (file_ == nullptr)
    throw FeaturesFileError(FeaturesFileErrorCode::kOpenFailed,
                            "cannot open " + path + ": " + std::strerror(open_errno), open_errno);

  try {
    unsigned char header[kFeaturesFileHeaderBytes];
    const size_t got = read_up_to(header, sizeof header);
    if (got < sizeof kFeaturesFileMagic ||
        std::memcmp(header, kFeaturesFileMagic, sizeof kFeaturesFileMagic) != 0)
      fail(FeaturesFileErrorCode::kNotAFeaturesFile,
           "not a gpusift features file (no GPSF magic at its start)");
    if (got < sizeof header)
      fail(FeaturesFileErrorCode::kTruncated, "truncated in the file header (" +
                                                  std::to_string(got) + " of " +
                                                  std::to_string(sizeof header) + " bytes)");
    version_ = get_u32(header + 8);
    if (version_ != kFeaturesFileVersion)
      fail(FeaturesFileErrorCode::kUnsupportedVersion,
           "version " + std::to_string(version_) + " is not supported (this reader reads " +
               std::to_string(kFeaturesFileVersion) + ")");
  } catch (...) {
    std::fclose(file_);
    file_ = nullptr;
    throw;
  }
}

FeaturesFileReader::~FeaturesFileReader() {
  if (file_ != nullptr)
    std::fclose(file_);
}

void FeaturesFileReader::fail(FeaturesFileErrorCode code, const std::string& problem) const {
  throw FeaturesFileError(code, path_ + ": " + problem);
}

size_t FeaturesFileReader::read_up_to(void* data, size_t size) {
  const size_t got = size == 0 ? 0 : std::fread(data, 1, size, file_);
  offset_ += got;
  if (got < size && std::ferror(file_)) {
    const int error_number = errno;
    throw FeaturesFileError(FeaturesFileErrorCode::kReadFailed,
                            "cannot read " + path_ + ": " + std::strerror(error_number),
                            error_number);
  }
  return got;
}

void FeaturesFileReader::read_exact(void* data, size_t size, const char* part) {
  const size_t got = read_up_to(data, size);
  if (got < size)
    fail(FeaturesFileErrorCode::kTruncated,
         "truncated in frame " + std::to_string(frames_read_) + " (record at byte " +
             std::to_string(record_offset_) + "): its " + part + " need " + std::to_string(size) +
             " bytes, the file has " + std::to_string(got) + " left");
}

void FeaturesFileReader::check_remaining(uint64_t bytes, const char* part) {
  const std::string record = "frame " + std::to_string(frames_read_) + " (record at byte " +
                             std::to_string(record_offset_) + ")";
  if (!size_known_) {
    if (bytes > kMaxUncheckedRecordBytes)
      fail(FeaturesFileErrorCode::kCorrupt, record + ": " + std::to_string(bytes) + " bytes of " +
                                                part + " are more than a record of a file of " +
                                                "unknown size may hold");
    return;
  }
  const auto remaining = [this] { return file_size_ > offset_ ? file_size_ - offset_ : 0; };
  // A file still being written has grown since it was opened.
  struct stat info {};
  if (bytes > remaining() && fstat(fileno(file_), &info) == 0)
    file_size_ = std::max(file_size_, static_cast<uint64_t>(info.st_size));
  if (bytes > remaining())
    fail(FeaturesFileErrorCode::kTruncated, "truncated in " + record + ": its " + part + " need " +
                                                std::to_string(bytes) + " bytes, the file has " +
                                                std::to_string(remaining()) + " left");
}

bool FeaturesFileReader::next(FeaturesFrame* frame) {
  record_offset_ = offset_;
  unsigned char bytes[kFeaturesRecordHeaderBytes];
  const size_t got = read_up_to(bytes, sizeof bytes);
  if (got == 0)
    return false;
  if (got < sizeof bytes)
    fail(FeaturesFileErrorCode::kTruncated,
         "truncated in frame " + std::to_string(frames_read_) + " (record at byte " +
             std::to_string(record_offset_) + "): its record header needs " +
             std::to_string(sizeof bytes) + " bytes, the file has " + std::to_string(got) +
             " left");
  if (std::memcmp(bytes, kFeaturesRecordTag, sizeof kFeaturesRecordTag) != 0)
    fail(FeaturesFileErrorCode::kCorrupt, "frame " + std::to_string(frames_read_) +
                                              " (record at byte " + std::to_string(record_offset_) +
                                              ") has no KPTS tag");
  FeaturesRecordHeader& header = frame->header;
  header.flags = get_u32(bytes + 4);
  header.pts = get_u64(bytes + 8);
  header.width = get_u32(bytes + 16);
  header.height = get_u32(bytes + 20);
  header.method = get_u32(bytes + 24);
  header.descriptor_type = static_cast<DescriptorStorage>(get_u32(bytes + 28));
  header.descriptor_size = get_u32(bytes + 32);
  header.n_keypoints = get_u32(bytes + 36);
  const std::string problem = check_record_header(header);
  if (!problem.empty())
    fail(FeaturesFileErrorCode::kCorrupt, "frame " + std::to_string(frames_read_) +
                                              " (record at byte " + std::to_string(record_offset_) +
                                              "): " + problem);

  check_remaining(header.keypoint_bytes() + header.descriptor_bytes(), "keypoints and descriptors");
  read_array(&frame->keypoints, header.n_keypoints, "keypoints");
  read_array(&frame->descriptors, header.descriptor_bytes(), "descriptors");
  ++frames_read_;
  return true;
}

template <class T>
void FeaturesFileReader::read_array(std::vector<T>* array, uint64_t count, const char* part) {
  // check_remaining() has made sure that a file of known size holds them: read them at once.
  if (size_known_) {
    array->resize(count);
    read_exact(array->data(), count * sizeof(T), part);
    return;
  }
  // A stream: the array grows with the bytes that come. The message on a short read is
  // read_exact()'s, counting the bytes of the whole array.
  array->clear();
  const uint64_t chunk = std::max<uint64_t>(1, kUncheckedReadChunkBytes / sizeof(T));
  while (array->size() < count) {
    const size_t filled = array->size();
    const size_t more = static_cast<size_t>(std::min<uint64_t>(count - filled, chunk));
    array->resize(filled + more);
    const size_t got = read_up_to(array->data() + filled, more * sizeof(T));
    if (got < more * sizeof(T))
      fail(FeaturesFileErrorCode::kTruncated,
           "truncated in frame " + std::to_string(frames_read_) + " (record at byte " +
               std::to_string(record_offset_) + "): its " + part + " need " +
               std::to_string(count * sizeof(T)) + " bytes, the file has " +
               std::to_string(filled * sizeof(T) + got) + " left");
  }
}

std::vector<FeaturesFrame> read_features_file(const std::string& path) {
  FeaturesFileReader reader(path);
  std::vector<FeaturesFrame> frames;
  FeaturesFrame frame;
  while (reader.next(&frame))
    frames.push_back(frame);
  return frames;
}

}  // namespace gpusift
