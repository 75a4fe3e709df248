// SPDX-License-Identifier: LGPL-2.1-or-later
#include "csv_writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace gpusift::tools {

namespace {

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

[[noreturn]] void fail(const std::string& path, int error_number) {
  throw std::runtime_error("cannot write " + path + ": " + std::strerror(error_number));
}

int descriptor_columns(const Features& features) {
  return features.descriptor_format == DescriptorFormat::kNone ? 0 : features.descriptor_size;
}

// SIFT's class_id is always -1, so only SURF writes the column.
struct CsvLayout {
  bool with_class_id;
  int descriptor_columns;
};

void write_header(std::FILE* file, const CsvLayout& layout) {
  std::fputs("x,y,size,angle,response,octave", file);
  if (layout.with_class_id)
    std::fputs(",class_id", file);
  const int columns = layout.descriptor_columns;
  for (int d = 0; d < columns; ++d)
    std::fprintf(file, ",d%d", d);
  std::fputc('\n', file);
}

void write_row(std::FILE* file, const Features& features, size_t index, const CsvLayout& layout) {
  const Keypoint& k = features.keypoints[index];
  std::fprintf(file, "%.9g,%.9g,%.9g,%.9g,%.9g,%d", k.x, k.y, k.size, k.angle, k.response,
               static_cast<int>(k.octave));
  if (layout.with_class_id)
    std::fprintf(file, ",%d", static_cast<int>(k.class_id));
  const int columns = layout.descriptor_columns;
  const size_t row_start = index * static_cast<size_t>(columns);
  if (features.descriptor_format == DescriptorFormat::kUint8) {
    const uint8_t* row = features.byte_descriptors.data() + row_start;
    for (int d = 0; d < columns; ++d)
      std::fprintf(file, ",%d", static_cast<int>(row[d]));
  } else if (columns > 0) {
    const float* row = features.float_descriptors.data() + row_start;
    for (int d = 0; d < columns; ++d)
      std::fprintf(file, ",%.9g", static_cast<double>(row[d]));
  }
  std::fputc('\n', file);
}

}  // namespace

void write_features_csv(const std::string& path, const Features& features, Method method) {
  const CsvLayout layout{method == Method::kSurf, descriptor_columns(features)};
  if (layout.descriptor_columns > 0 &&
      static_cast<size_t>(features.descriptor_row_count()) < features.keypoints.size())
    throw std::runtime_error("internal error: fewer descriptor rows than keypoints");
  const bool to_stdout = path == "-";
  FilePtr file(to_stdout ? nullptr : std::fopen(path.c_str(), "w"));
  if (!to_stdout && !file)
    fail(path, errno);
  std::FILE* out = to_stdout ? stdout : file.get();
  write_header(out, layout);
  for (size_t i = 0; i < features.keypoints.size(); ++i)
    write_row(out, features, i, layout);
  // Checking the close (or the flush) as well catches a full disk on the last buffered block.
  const bool write_failed = std::ferror(out) != 0;
  const int write_errno = errno;
  if (to_stdout ? std::fflush(stdout) != 0 : std::fclose(file.release()) != 0)
    fail(to_stdout ? "stdout" : path, errno);
  if (write_failed)
    fail(to_stdout ? "stdout" : path, write_errno != 0 ? write_errno : EIO);
}

}  // namespace gpusift::tools
