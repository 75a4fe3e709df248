// SPDX-License-Identifier: LGPL-2.1-or-later
#include "object_reference.h"

#include <glib.h>
#include <glib/gstdio.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "gpusift/features.h"
#include "gpusift/features_file_reader.h"

namespace gpusift::gst {

namespace {

ReferenceLoadError load_error(ReferenceFailure failure, const std::string& message,
                              const std::string& detail) {
  return ReferenceLoadError{failure, message, detail};
}

// Whether the file opens for reading and starts with the features file's magic; errno's text in
// `problem` when it does not open.
bool open_and_sniff(const std::string& path, bool* features_file, std::string* problem) {
  std::FILE* file = g_fopen(path.c_str(), "rb");
  if (!file) {
    *problem = std::strerror(errno);
    return false;
  }
  char magic[sizeof(kFeaturesFileMagic)] = {};
  const size_t read = std::fread(magic, 1, sizeof(magic), file);
  std::fclose(file);
  *features_file =
      read == sizeof(magic) && std::memcmp(magic, kFeaturesFileMagic, sizeof(magic)) == 0;
  return true;
}

DescriptorStorage storage_of(const Features& features) {
  if (features.descriptor_size == 0)
    return DescriptorStorage::kNone;
  return descriptor_storage_of(features.descriptor_format);
}

}  // namespace

std::string describe_layout(Method method, DescriptorStorage storage, int descriptor_size) {
  std::string text = method == Method::kSurf ? "SURF" : "SIFT";
  switch (storage) {
    case DescriptorStorage::kNone:
      return text + " without descriptors";
    case DescriptorStorage::kFloat32:
      return text + ", " + std::to_string(descriptor_size) + " float32 values";
    case DescriptorStorage::kUint8:
      return text + ", " + std::to_string(descriptor_size) + " uint8 values";
  }
  return text;
}

void ObjectReference::clear() {
  *this = ObjectReference{};
}

bool ObjectReference::load(const std::string& path, int decode_timeout_seconds,
                           ReferenceLoadError* error) {
  clear();
  path_ = path;
  if (path.empty()) {
    *error = load_error(ReferenceFailure::kNotFound, "No reference given",
                        "set keypointmatcher's reference property to an image or features file");
    return false;
  }
  GStatBuf status;
  if (g_stat(path.c_str(), &status) != 0) {
    const int cause = errno;
    *error = load_error(cause == ENOENT || cause == ENOTDIR ? ReferenceFailure::kNotFound
                                                            : ReferenceFailure::kUnreadable,
                        "Cannot find the reference \"" + path + "\"", std::strerror(cause));
    return false;
  }
  if (!S_ISREG(status.st_mode)) {
    *error =
        load_error(ReferenceFailure::kUnreadable, "The reference \"" + path + "\" is not a file",
                   "a folder or a device: name an image or a features file");
    return false;
  }
  bool features_file = false;
  std::string problem;
  if (!open_and_sniff(path, &features_file, &problem)) {
    *error = load_error(ReferenceFailure::kUnreadable,
                        "Cannot open the reference \"" + path + "\" for reading", problem);
    return false;
  }
  if (features_file)
    return load_features_file(error);
  if (!decode_image_file(path, decode_timeout_seconds, &image_, &problem)) {
    *error = load_error(ReferenceFailure::kUnreadable,
                        "Cannot decode the reference image \"" + path + "\"", problem);
    return false;
  }
  if (image_.width > kMaxFrameSide || image_.height > kMaxFrameSide) {
    *error = load_error(ReferenceFailure::kUnreadable,
                        "The reference image \"" + path + "\" is too large",
                        std::to_string(image_.width) + "x" + std::to_string(image_.height) +
                            " is larger than " + std::to_string(kMaxFrameSide) + " a side");
    return false;
  }
  is_image_ = true;
  return true;
}

bool ObjectReference::load_features_file(ReferenceLoadError* error) {
  FeaturesFrame frame;
  std::string problem;
  try {
    // The first frame is the reference; the records after it are read too, so that the file is
    // validated as the features-file reader validates it (record after record to the end): a
    // record length that does not fall on the next record is a corrupt file, not 0 matches.
    FeaturesFileReader reader(path_);
    if (!reader.next(&frame)) {
      problem = "the file holds no frame";
    } else {
      FeaturesFrame later;
      while (reader.next(&later)) {
      }
    }
  } catch (const FeaturesFileError& e) {
    problem = e.what();
  }
  const FeaturesRecordHeader& h = frame.header;
  if (problem.empty() && (h.flags & kFeaturesRecordNoFeatures))
    problem = "its first frame carried no features";
  if (problem.empty() && (h.width == 0 || h.height == 0))
    problem = "its first frame has no size";
  if (problem.empty() && h.descriptor_type == DescriptorStorage::kNone)
    problem =
        "its first frame has no descriptors: write it with descriptor=float, uint8 or "
        "rootsift";
  if (!problem.empty()) {
    *error = load_error(ReferenceFailure::kUnreadable,
                        "Cannot use the reference features file \"" + path_ + "\"", problem);
    return false;
  }
  features_.method = h.method == 1 ? Method::kSurf : Method::kSift;
  features_.width = static_cast<int>(h.width);
  features_.height = static_cast<int>(h.height);
  features_.keypoints = std::move(frame.keypoints);
  features_.storage = h.descriptor_type;
  features_.descriptor_size = static_cast<int>(h.descriptor_size);
  features_.descriptors = std::move(frame.descriptors);
  has_features_ = true;
  return true;
}

void ObjectReference::compute_features(Extractor* extractor, Method method) {
  Features features;
  extractor->extract(image_.view(), &features);
  features_.method = method;
  features_.width = image_.width;
  features_.height = image_.height;
  features_.keypoints = std::move(features.keypoints);
  features_.storage = storage_of(features);
  features_.descriptor_size = features.descriptor_size;
  const size_t row_count = features_.keypoints.size();
  const size_t row_bytes =
      static_cast<size_t>(features.descriptor_size) * descriptor_storage_bytes(features_.storage);
  const uint8_t* rows = features_.storage == DescriptorStorage::kUint8
                            ? features.byte_descriptors.data()
                            : reinterpret_cast<const uint8_t*>(features.float_descriptors.data());
  features_.descriptors.assign(rows, rows + row_count * row_bytes);
  has_features_ = true;
}

}  // namespace gpusift::gst
