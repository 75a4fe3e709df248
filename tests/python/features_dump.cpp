// SPDX-License-Identifier: LGPL-2.1-or-later
// Prints what the C++ reader sees in a features file, one line per frame, the arrays as hex, so
// that the Python reader's test can compare with it byte for byte:
//   flags pts width height method descriptor_type descriptor_size n_keypoints KEYPOINTS DESCRIPTORS
// (an empty array prints as "-"). A reader error prints "error: <message>" and exits with 1.
#include <cstdio>
#include <exception>
#include <string>

#include "gpusift/features_file_reader.h"

namespace {

std::string hex(const void* data, size_t size) {
  if (size == 0)
    return "-";
  static const char kDigits[] = "0123456789abcdef";
  std::string text;
  text.reserve(size * 2);
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) {
    text += kDigits[bytes[i] >> 4];
    text += kDigits[bytes[i] & 15];
  }
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: features-dump FILE.gpsf\n");
    return 2;
  }
  try {
    gpusift::FeaturesFileReader reader(argv[1]);
    gpusift::FeaturesFrame frame;
    while (reader.next(&frame)) {
      const gpusift::FeaturesRecordHeader& h = frame.header;
      std::printf("%u %llu %u %u %u %u %u %u %s %s\n", h.flags,
                  static_cast<unsigned long long>(h.pts), h.width, h.height, h.method,
                  static_cast<unsigned>(h.descriptor_type), h.descriptor_size, h.n_keypoints,
                  hex(frame.keypoints.data(), h.keypoint_bytes()).c_str(),
                  hex(frame.descriptors.data(), frame.descriptors.size()).c_str());
    }
  } catch (const std::exception& error) {
    std::printf("error: %s\n", error.what());
    return 1;
  }
  return 0;
}
