// SPDX-License-Identifier: LGPL-2.1-or-later
// Shared set-up of the CUDA suites: device 0 current and a stream per fixture.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <opencv2/core.hpp>
#include <utility>
#include <vector>

#include "feature_identity.h"
#include "gpusift/cuda_sift.h"
#include "gpusift/error.h"

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

  // A video loop keeps one Features for every frame; the extractors leave its descriptor arrays
  // at their last sizes until they overwrite them. Extracts `sequence` (extractor, GRAY8 image)
  // into one reused Features and expects each result to equal a fresh one.
  template <typename Extractor>
  void expect_reused_features_hold_each_result(
      const std::vector<std::pair<Extractor*, const cv::Mat*>>& sequence) {
    Features reused;
    for (size_t i = 0; i < sequence.size(); ++i) {
      Extractor& extractor = *sequence[i].first;
      const cv::Mat& image = *sequence[i].second;
      const FrameView frame{image.data, image.step,          image.cols,
                            image.rows, PixelFormat::kGray8, MemoryKind::kHost};
      extractor.extract(frame, stream_.get(), &reused);
      Features fresh;
      extractor.extract(frame, stream_.get(), &fresh);
      EXPECT_TRUE(bit_identical(reused, fresh)) << "frame " << i;
      EXPECT_EQ(reused.descriptor_row_count(),
                reused.descriptor_size > 0 ? static_cast<int>(reused.keypoints.size()) : 0)
          << "frame " << i;
    }
  }

  ScopedCudaDevice device_;
  OwnedCudaStream stream_;
};

// The code of the gpusift::Error that `action` throws (a test failure when it throws none).
inline ErrorCode code_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& error) {
    return error.code();
  }
  ADD_FAILURE() << "no gpusift::Error was thrown";
  return ErrorCode::kDeviceFailure;
}

// code_of(action) while every device allocation of 256 MB that still succeeds is held.
inline ErrorCode code_with_device_memory_taken(const std::function<void()>& action) {
  std::vector<void*> taken;
  const size_t chunk = size_t(256) << 20;
  for (void* p = nullptr; cudaMalloc(&p, chunk) == cudaSuccess;)
    taken.push_back(p);
  cudaGetLastError();
  const ErrorCode code = code_of(action);
  for (void* p : taken)
    cudaFree(p);
  return code;
}

// Every field: keypoints, descriptor format and size, rows, counts (feature_identity.h).
inline bool identical(const Features& a, const Features& b) {
  return bit_identical(a, b);
}

}  // namespace gpusift::testing
