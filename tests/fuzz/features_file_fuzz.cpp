// SPDX-License-Identifier: LGPL-2.1-or-later
// The features-file reader on any bytes: it returns frames or throws FeaturesFileError, never
// anything else, never reads or allocates past what the file holds (the sanitizers check), and
// what it returns is consistent (descriptor rows for every keypoint).
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "fuzz_input_file.h"
#include "gpusift/features_file.h"
#include "gpusift/features_file_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const gpusift::fuzz::InputFile file(data, size);
  if (!file.ok())
    return 0;
  try {
    gpusift::FeaturesFileReader reader(file.path());
    gpusift::FeaturesFrame frame;
    while (reader.next(&frame)) {
      const size_t n = frame.keypoints.size();
      if (n != frame.header.n_keypoints)
        std::abort();
      if (frame.descriptors.size() != frame.header.descriptor_bytes())
        std::abort();
    }
  } catch (const gpusift::FeaturesFileError&) {
  }
  return 0;
}
