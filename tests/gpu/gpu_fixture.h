// Shared set-up of the CUDA suites: device 0 current and a stream per fixture.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "gpusift/cuda_sift.h"

namespace gpusift::testing {

class CudaTest : public ::testing::Test {
 protected:
  CudaTest() : device_(0), stream_(device_) {}

  Features extract_host(CudaSiftExtractor& extractor, const uint8_t* data, size_t pitch, int width,
                        int height, PixelFormat format = PixelFormat::kGray8) {
    Features out;
    extractor.extract(FrameView{data, pitch, width, height, format, MemoryKind::kHost},
                      stream_.get(), &out);
    return out;
  }

  ScopedCudaDevice device_;
  OwnedCudaStream stream_;
};

inline bool identical(const Features& a, const Features& b) {
  return a.keypoints.size() == b.keypoints.size() &&
         std::memcmp(a.keypoints.data(), b.keypoints.data(),
                     a.keypoints.size() * sizeof(Keypoint)) == 0 &&
         a.float_descriptors == b.float_descriptors && a.byte_descriptors == b.byte_descriptors &&
         a.overflowed == b.overflowed && a.detected_count == b.detected_count;
}

}  // namespace gpusift::testing
