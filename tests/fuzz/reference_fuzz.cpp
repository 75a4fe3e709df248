// SPDX-License-Identifier: LGPL-2.1-or-later
// keypointmatcher's reference loader on any file: a features file (by its magic) is read and
// checked as the reader does, anything else goes through GStreamer's decoders as an image, whose
// features are then computed on the CPU. It loads or says why not, and never crashes; what it
// loads is consistent (descriptor rows for every keypoint, a frame size).
#include <gst/gst.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "fuzz_gstreamer.h"
#include "fuzz_input_file.h"
#include "gpusift/error.h"
#include "gpusift/extractor.h"
#include "object_reference.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpusift::fuzz::init_gstreamer_quietly(true);
  const gpusift::fuzz::InputFile file(data, size);
  if (!file.ok())
    return 0;
  gpusift::gst::ObjectReference reference;
  gpusift::gst::ReferenceLoadError error;
  if (!reference.load(file.path(), 5, &error))
    return 0;
  if (reference.is_image()) {
    try {
      const auto extractor =
          gpusift::create_extractor(gpusift::Backend::kCpu, gpusift::SiftParams{});
      reference.compute_features(extractor.get(), gpusift::Method::kSift);
    } catch (const gpusift::Error&) {
      return 0;  // a decoded image the extractor refuses (too large, say) is an error, no crash
    }
  }
  if (!reference.has_features())
    return 0;
  const gpusift::gst::ReferenceFeatures& f = reference.features();
  const size_t value = f.storage == gpusift::DescriptorStorage::kFloat32 ? 4
                       : f.storage == gpusift::DescriptorStorage::kUint8 ? 1
                                                                         : 0;
  if (f.width <= 0 || f.height <= 0 ||
      f.descriptors.size() != f.keypoints.size() * f.descriptor_size * value)
    std::abort();
  return 0;
}
