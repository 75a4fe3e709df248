// SPDX-License-Identifier: LGPL-2.1-or-later
// The gpusift features file (.gpsf): per-frame keypoints and descriptors, one record per frame,
// written as a stream so that a file cut short by a killed process keeps every whole record.
//
// Layout, version 1. All integers and floats are little-endian; nothing is padded or aligned.
//
// File header, 16 bytes:
//   offset size type      field
//        0    8 bytes     magic: 47 50 53 46 0D 0A 1A 0A ("GPSF\r\n\x1a\n")
//        8    4 uint32    version: 1
//       12    4 uint32    flags: 0 in version 1; readers ignore it
//
// Then zero or more frame records, each a 40-byte header followed by its arrays:
//   offset size type      field
//        0    4 bytes     tag: "KPTS"
//        4    4 uint32    flags: bit 0 (kFeaturesRecordNoFeatures) = the frame carried no
//                         features (a buffer without GstKeypointsMeta; n_keypoints then 0);
//                         other bits 0
//        8    8 uint64    pts in nanoseconds (GstClockTime); all ones = none
//       16    4 uint32    width  } the keypoints' coordinate space (the meta's width x height,
//       20    4 uint32    height } or the frame's size); each in [1, 2^31 - 1]
//       24    4 uint32    method: 0 sift, 1 surf
//       28    4 uint32    descriptor type: 0 none, 1 float32, 2 uint8
//       32    4 uint32    descriptor size: values per row; 0 exactly when the type is none
//       36    4 uint32    n_keypoints
//       40   28*n         keypoints, n records of 28 bytes (GstKeypoint, gpusift::Keypoint):
//                         x, y, size, angle, response (float32), octave, class_id (int32)
//   40+28*n  n*size*e     descriptors: n rows of `descriptor size` values, e = 4 (float32) or
//                         1 (uint8) bytes each
//
// The end of the file must fall on a record boundary; anything else is a truncated file.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "gpusift/features.h"
#include "gpusift/keypoint.h"
#include "gpusift/method.h"

namespace gpusift {

inline constexpr char kFeaturesFileMagic[8] = {'G', 'P', 'S', 'F', '\r', '\n', '\x1a', '\n'};
inline constexpr uint32_t kFeaturesFileVersion = 1;
inline constexpr size_t kFeaturesFileHeaderBytes = 16;
inline constexpr char kFeaturesRecordTag[4] = {'K', 'P', 'T', 'S'};
inline constexpr size_t kFeaturesRecordHeaderBytes = 40;
inline constexpr size_t kFeaturesKeypointBytes = 28;
inline constexpr uint64_t kFeaturesNoPts = ~uint64_t{0};
inline constexpr uint32_t kFeaturesRecordNoFeatures = 1u << 0;
// Far above any extractor's descriptor (128 values); a larger size marks a corrupt record.
inline constexpr uint32_t kFeaturesMaxDescriptorSize = 1u << 16;
// A width or height past this (what an int holds) marks a corrupt record.
inline constexpr uint32_t kFeaturesMaxFrameSide = 0x7FFFFFFFu;

static_assert(sizeof(Keypoint) == kFeaturesKeypointBytes, "Keypoint is the on-disk record");

// The same numbers as GstKeypointsDescriptorType.
enum class DescriptorStorage : uint32_t { kNone = 0, kFloat32 = 1, kUint8 = 2 };

// Bytes per descriptor value: 4, 1, or 0 for kNone.
size_t descriptor_storage_bytes(DescriptorStorage storage);
// How a descriptor format is stored: kFloat and kRootSift as float32, kUint8 as uint8.
DescriptorStorage descriptor_storage_of(DescriptorFormat format);

// One record's header fields, in the file's units. method is 0 (sift) or 1 (surf), as
// GstKeypointsMethod.
struct FeaturesRecordHeader {
  uint32_t flags = 0;
  uint64_t pts = kFeaturesNoPts;
  uint32_t width = 0;
  uint32_t height = 0;
  uint32_t method = 0;
  DescriptorStorage descriptor_type = DescriptorStorage::kNone;
  uint32_t descriptor_size = 0;
  uint32_t n_keypoints = 0;

  uint64_t keypoint_bytes() const { return uint64_t{n_keypoints} * kFeaturesKeypointBytes; }
  uint64_t descriptor_bytes() const {
    return uint64_t{n_keypoints} * descriptor_size * descriptor_storage_bytes(descriptor_type);
  }
};

// The header of a record holding `features` (their descriptor rows checked against the
// keypoints). Throws FeaturesFileError(kInvalidArgument) on inconsistent features.
FeaturesRecordHeader make_record_header(const Features& features, Method method, int width,
                                        int height, uint64_t pts);

// Empty when the fields are valid, else what is wrong: the method, the descriptor type and size,
// a width or height of 0 or past kFeaturesMaxFrameSide, keypoints in a record flagged
// kFeaturesRecordNoFeatures. The writer refuses such a record and the readers (C++ and
// gpusift_features.py) report it as corrupt.
std::string check_record_header(const FeaturesRecordHeader& header);

enum class FeaturesFileErrorCode {
  kInvalidArgument,     // a record that cannot be written as given
  kOpenFailed,          // open() failed; system_errno() says why
  kWriteFailed,         // write(), fsync() or close() failed; ENOSPC is a full disk
  kReadFailed,          // read() failed
  kNotAFeaturesFile,    // bad magic
  kUnsupportedVersion,  // a version this reader does not know
  kCorrupt,             // a record with a bad tag or impossible fields
  kTruncated,           // the file ends inside the header or a record
};

const char* features_file_error_code_name(FeaturesFileErrorCode code);

// what() is one line naming the file and, for system failures, strerror(system_errno()).
class FeaturesFileError : public std::runtime_error {
 public:
  FeaturesFileError(FeaturesFileErrorCode code, const std::string& message, int system_errno = 0)
      : std::runtime_error(message), code_(code), system_errno_(system_errno) {}
  FeaturesFileErrorCode code() const { return code_; }
  // errno of the failed system call, 0 when no system call failed.
  int system_errno() const { return system_errno_; }

 private:
  FeaturesFileErrorCode code_;
  int system_errno_;
};

}  // namespace gpusift
