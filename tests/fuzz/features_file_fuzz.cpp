// SPDX-License-Identifier: LGPL-2.1-or-later
// The features-file reader on any bytes: it returns frames or throws FeaturesFileError, never
// anything else, never reads or allocates past what the file holds (the sanitizers check), and
// what it returns is consistent (descriptor rows for every keypoint).
//
// Each input is read twice: as a regular file, whose size the reader checks a record's counts
// against before it allocates, and through a pipe, where it cannot and must let its memory
// follow the bytes that come (fuzz.sh runs this harness with a malloc limit far below what a
// record header can claim). Both must give the same frames.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_input_file.h"
#include "gpusift/features_file.h"
#include "gpusift/features_file_reader.h"

namespace {

// The frames before the first error (or the end), each checked for consistency.
std::vector<gpusift::FeaturesFrame> read_all(const std::string& path) {
  std::vector<gpusift::FeaturesFrame> frames;
  try {
    gpusift::FeaturesFileReader reader(path);
    gpusift::FeaturesFrame frame;
    while (reader.next(&frame)) {
      if (frame.keypoints.size() != frame.header.n_keypoints)
        std::abort();
      if (frame.descriptors.size() != frame.header.descriptor_bytes())
        std::abort();
      if (!gpusift::check_record_header(frame.header).empty())
        std::abort();
      frames.push_back(frame);
    }
  } catch (const gpusift::FeaturesFileError&) {
  }
  return frames;
}

bool same_header(const gpusift::FeaturesRecordHeader& a, const gpusift::FeaturesRecordHeader& b) {
  return a.flags == b.flags && a.pts == b.pts && a.width == b.width && a.height == b.height &&
         a.method == b.method && a.descriptor_type == b.descriptor_type &&
         a.descriptor_size == b.descriptor_size && a.n_keypoints == b.n_keypoints;
}

bool same_frames(const std::vector<gpusift::FeaturesFrame>& a,
                 const std::vector<gpusift::FeaturesFrame>& b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const gpusift::FeaturesFrame& x = a[i];
    const gpusift::FeaturesFrame& y = b[i];
    if (!same_header(x.header, y.header) || x.keypoints.size() != y.keypoints.size() ||
        x.descriptors != y.descriptors)
      return false;
    // memcmp wants valid pointers even for 0 bytes, and an empty vector may have none.
    if (!x.keypoints.empty() && std::memcmp(x.keypoints.data(), y.keypoints.data(),
                                            x.keypoints.size() * sizeof(gpusift::Keypoint)) != 0)
      return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const gpusift::fuzz::InputFile file(data, size);
  if (!file.ok())
    return 0;
  const std::vector<gpusift::FeaturesFrame> from_file = read_all(file.path());
  const gpusift::fuzz::InputPipe pipe(data, size);
  if (!pipe.ok())
    return 0;
  if (!same_frames(from_file, read_all(pipe.path())))
    std::abort();
  return 0;
}
