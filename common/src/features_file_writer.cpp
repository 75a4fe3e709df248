// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/features_file_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gpusift {

namespace {

std::string system_message(const std::string& action, const std::string& path, int error_number) {
  return "cannot " + action + " " + path + ": " + std::strerror(error_number);
}

void put_u32(unsigned char* at, uint32_t value) {
  std::memcpy(at, &value, sizeof value);
}

void put_u64(unsigned char* at, uint64_t value) {
  std::memcpy(at, &value, sizeof value);
}

}  // namespace

FeaturesFileWriter::FeaturesFileWriter(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    const int error_number = errno;
    throw FeaturesFileError(FeaturesFileErrorCode::kOpenFailed,
                            system_message("open", path + " for writing", error_number),
                            error_number);
  }
  struct stat info {};
  regular_file_ = fstat(fd_, &info) == 0 && S_ISREG(info.st_mode);

  unsigned char header[kFeaturesFileHeaderBytes] = {};
  std::memcpy(header, kFeaturesFileMagic, sizeof kFeaturesFileMagic);
  put_u32(header + 8, kFeaturesFileVersion);
  put_u32(header + 12, 0);
  try {
    write_all(header, sizeof header);
  } catch (...) {
    ::close(fd_);
    fd_ = -1;
    throw;
  }
  committed_bytes_ = static_cast<off_t>(sizeof header);
}

FeaturesFileWriter::~FeaturesFileWriter() {
  if (fd_ >= 0)
    ::close(fd_);
}

void FeaturesFileWriter::check_writable() const {
  if (fd_ < 0)
    throw FeaturesFileError(FeaturesFileErrorCode::kInvalidArgument,
                            "cannot write " + path_ + ": the file is closed");
  if (failed_)
    throw FeaturesFileError(FeaturesFileErrorCode::kWriteFailed,
                            "cannot write " + path_ + ": an earlier write failed");
}

void FeaturesFileWriter::write_frame(const FeaturesRecordHeader& header, const Keypoint* keypoints,
                                     const void* descriptors) {
  check_writable();
  const std::string problem = check_record_header(header);
  if (!problem.empty())
    throw FeaturesFileError(FeaturesFileErrorCode::kInvalidArgument,
                            "cannot write a record to " + path_ + ": " + problem);
  if ((header.n_keypoints > 0 && keypoints == nullptr) ||
      (header.descriptor_bytes() > 0 && descriptors == nullptr))
    throw FeaturesFileError(
        FeaturesFileErrorCode::kInvalidArgument,
        "cannot write a record to " + path_ + ": null keypoints or descriptors");

  unsigned char bytes[kFeaturesRecordHeaderBytes] = {};
  std::memcpy(bytes, kFeaturesRecordTag, sizeof kFeaturesRecordTag);
  put_u32(bytes + 4, header.flags);
  put_u64(bytes + 8, header.pts);
  put_u32(bytes + 16, header.width);
  put_u32(bytes + 20, header.height);
  put_u32(bytes + 24, header.method);
  put_u32(bytes + 28, static_cast<uint32_t>(header.descriptor_type));
  put_u32(bytes + 32, header.descriptor_size);
  put_u32(bytes + 36, header.n_keypoints);
  write_all(bytes, sizeof bytes);
  write_all(keypoints, header.keypoint_bytes());
  write_all(descriptors, header.descriptor_bytes());
  committed_bytes_ +=
      static_cast<off_t>(sizeof bytes + header.keypoint_bytes() + header.descriptor_bytes());
  ++frames_written_;
}

void FeaturesFileWriter::write_frame(const Features& features, Method method, int width, int height,
                                     uint64_t pts) {
  const FeaturesRecordHeader header = make_record_header(features, method, width, height, pts);
  const void* descriptors = header.descriptor_type == DescriptorStorage::kUint8
                                ? static_cast<const void*>(features.byte_descriptors.data())
                                : static_cast<const void*>(features.float_descriptors.data());
  write_frame(header, features.keypoints.data(), descriptors);
}

void FeaturesFileWriter::write_all(const void* data, size_t size) {
  const auto* at = static_cast<const unsigned char*>(data);
  while (size > 0) {
    const ssize_t written = ::write(fd_, at, size);
    if (written < 0 && errno == EINTR)
      continue;
    if (written < 0)
      fail(errno);
    if (written == 0)
      fail(EIO);
    at += written;
    size -= static_cast<size_t>(written);
  }
}

void FeaturesFileWriter::fail(int error_number) {
  failed_ = true;
  // A partial record would make the reader stop with "truncated" at this frame; cutting it off
  // keeps the frames before it readable.
  if (regular_file_ && ftruncate(fd_, committed_bytes_) == 0)
    lseek(fd_, committed_bytes_, SEEK_SET);
  const std::string where = committed_bytes_ == 0
                                ? "in the file header"
                                : "at frame index " + std::to_string(frames_written_) + " (" +
                                      std::to_string(frames_written_) + " written before it)";
  throw FeaturesFileError(FeaturesFileErrorCode::kWriteFailed,
                          system_message("write", path_, error_number) + ", " + where,
                          error_number);
}

void FeaturesFileWriter::sync() {
  check_writable();
  if (fsync(fd_) == 0 || errno == EINVAL || errno == EROFS)
    return;
  const int error_number = errno;
  failed_ = true;
  throw FeaturesFileError(FeaturesFileErrorCode::kWriteFailed,
                          system_message("sync", path_, error_number), error_number);
}

void FeaturesFileWriter::close() {
  if (fd_ < 0)
    return;
  const int fd = fd_;
  fd_ = -1;
  // Linux releases the descriptor even when close() is interrupted, so EINTR is not a failure.
  if (::close(fd) != 0 && errno != EINTR) {
    const int error_number = errno;
    throw FeaturesFileError(FeaturesFileErrorCode::kWriteFailed,
                            system_message("close", path_, error_number), error_number);
  }
}

}  // namespace gpusift
