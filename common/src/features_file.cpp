// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/features_file.h"

#include <string>

// The writer and reader copy records to and from memory as they are; a big-endian host would
// need byte swaps, and none of gpusift's targets (x86-64, Arm64, Jetson) is one.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the features file is little-endian and the reader and writer do not swap bytes"
#endif

namespace gpusift {

size_t descriptor_storage_bytes(DescriptorStorage storage) {
  switch (storage) {
    case DescriptorStorage::kFloat32:
      return 4;
    case DescriptorStorage::kUint8:
      return 1;
    case DescriptorStorage::kNone:
      return 0;
  }
  return 0;
}

DescriptorStorage descriptor_storage_of(DescriptorFormat format) {
  switch (format) {
    case DescriptorFormat::kFloat:
    case DescriptorFormat::kRootSift:
      return DescriptorStorage::kFloat32;
    case DescriptorFormat::kUint8:
      return DescriptorStorage::kUint8;
    case DescriptorFormat::kNone:
      return DescriptorStorage::kNone;
  }
  return DescriptorStorage::kNone;
}

std::string check_record_header(const FeaturesRecordHeader& header) {
  if (header.method > 1)
    return "method " + std::to_string(header.method) + " is neither 0 (sift) nor 1 (surf)";
  const auto type = static_cast<uint32_t>(header.descriptor_type);
  if (type > 2)
    return "descriptor type " + std::to_string(type) + " is not 0 (none), 1 (float32), 2 (uint8)";
  const bool none = header.descriptor_type == DescriptorStorage::kNone;
  if (none != (header.descriptor_size == 0))
    return "descriptor size " + std::to_string(header.descriptor_size) + " with descriptor type " +
           std::to_string(type);
  if (header.descriptor_size > kFeaturesMaxDescriptorSize)
    return "descriptor size " + std::to_string(header.descriptor_size) + " is past " +
           std::to_string(kFeaturesMaxDescriptorSize);
  // A buffer without the meta may come from caps without a size: its "no features" record
  // says 0x0, which is then "unknown" rather than empty.
  const bool no_features = (header.flags & kFeaturesRecordNoFeatures) != 0;
  if (!no_features && (header.width == 0 || header.height == 0))
    return "frame size " + std::to_string(header.width) + "x" + std::to_string(header.height) +
           " is empty";
  if (header.width > kFeaturesMaxFrameSide || header.height > kFeaturesMaxFrameSide)
    return "frame size " + std::to_string(header.width) + "x" + std::to_string(header.height) +
           " is past " + std::to_string(kFeaturesMaxFrameSide) + " a side";
  if ((header.flags & kFeaturesRecordNoFeatures) && header.n_keypoints > 0)
    return "flagged \"no features\" but holds " + std::to_string(header.n_keypoints) + " keypoints";
  return "";
}

FeaturesRecordHeader make_record_header(const Features& features, Method method, int width,
                                        int height, uint64_t pts) {
  if (width < 0 || height < 0)
    throw FeaturesFileError(
        FeaturesFileErrorCode::kInvalidArgument,
        "frame size " + std::to_string(width) + "x" + std::to_string(height) + " is negative");
  FeaturesRecordHeader header;
  header.pts = pts;
  header.width = static_cast<uint32_t>(width);
  header.height = static_cast<uint32_t>(height);
  header.method = method == Method::kSurf ? 1 : 0;
  header.n_keypoints = static_cast<uint32_t>(features.keypoints.size());
  header.descriptor_type = descriptor_storage_of(features.descriptor_format);
  if (header.descriptor_type != DescriptorStorage::kNone) {
    header.descriptor_size = static_cast<uint32_t>(features.descriptor_size);
    if (features.descriptor_size <= 0 ||
        static_cast<size_t>(features.descriptor_row_count()) < features.keypoints.size())
      throw FeaturesFileError(
          FeaturesFileErrorCode::kInvalidArgument,
          "features with " + std::to_string(features.keypoints.size()) + " keypoints carry " +
              std::to_string(features.descriptor_row_count()) + " descriptor rows of " +
              std::to_string(features.descriptor_size) + " values");
  }
  return header;
}

const char* features_file_error_code_name(FeaturesFileErrorCode code) {
  switch (code) {
    case FeaturesFileErrorCode::kInvalidArgument:
      return "invalid argument";
    case FeaturesFileErrorCode::kOpenFailed:
      return "open failed";
    case FeaturesFileErrorCode::kWriteFailed:
      return "write failed";
    case FeaturesFileErrorCode::kReadFailed:
      return "read failed";
    case FeaturesFileErrorCode::kNotAFeaturesFile:
      return "not a features file";
    case FeaturesFileErrorCode::kUnsupportedVersion:
      return "unsupported version";
    case FeaturesFileErrorCode::kCorrupt:
      return "corrupt record";
    case FeaturesFileErrorCode::kTruncated:
      return "truncated file";
  }
  return "unknown error";
}

}  // namespace gpusift
