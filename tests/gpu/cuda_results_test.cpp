// SPDX-License-Identifier: LGPL-2.1-or-later
// The host copies a frame's descriptor rows into the caller's Features chunk by chunk, while the
// device still describes later rows: every row must arrive whole, in every format, over many
// chunks, with a frame in flight behind it, and with Features reused from frame to frame.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include <opencv2/core.hpp>

#include "feature_identity.h"
#include "feature_kernels.h"
#include "gpu_fixture.h"
#include "gpusift/cuda_sift.h"
#include "gpusift/sift_descriptor.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

class CudaResults : public CudaTest {};

size_t row_bytes(DescriptorFormat format) {
  return kDescriptorLength * (format == DescriptorFormat::kUint8 ? 1 : sizeof(float));
}

// The rows of the last finished frame, from the extractor's device buffer.
std::vector<uint8_t> device_rows(const CudaSiftExtractor& gpu) {
  const DeviceFeatures on_device = gpu.device_features();
  std::vector<uint8_t> rows(static_cast<size_t>(on_device.count) *
                            row_bytes(on_device.descriptor_format));
  EXPECT_EQ(cudaMemcpy(rows.data(), on_device.descriptors, rows.size(), cudaMemcpyDeviceToHost),
            cudaSuccess);
  return rows;
}

const uint8_t* host_rows(const Features& f) {
  return f.descriptor_format == DescriptorFormat::kUint8
             ? f.byte_descriptors.data()
             : reinterpret_cast<const uint8_t*>(f.float_descriptors.data());
}

void expect_rows_equal_the_device(const CudaSiftExtractor& gpu, const Features& f) {
  const std::vector<uint8_t> expected = device_rows(gpu);
  ASSERT_EQ(f.descriptor_row_count(), static_cast<int>(f.keypoints.size()));
  ASSERT_EQ(expected.size(), f.keypoints.size() * row_bytes(f.descriptor_format));
  EXPECT_EQ(std::memcmp(expected.data(), host_rows(f), expected.size()), 0);
}

FrameView gray_view(const cv::Mat& gray) {
  return FrameView{gray.data, gray.step,           gray.cols,
                   gray.rows, PixelFormat::kGray8, MemoryKind::kHost};
}

TEST_F(CudaResults, RowsCopiedWhileDescribedEqualTheDeviceRowsInEveryFormat) {
  const cv::Mat gravel = load_gray("gravel.png");
  ASSERT_FALSE(gravel.empty());
  const cv::Mat large = resized(gravel, 2 * gravel.cols, 2 * gravel.rows);
  const cv::Mat small = resized(gravel, 96, 80);
  for (const DescriptorFormat format :
       {DescriptorFormat::kFloat, DescriptorFormat::kUint8, DescriptorFormat::kRootSift}) {
    SiftParams params = video_sift_params();
    params.descriptor = format;
    CudaSiftExtractor gpu(params);
    Features f;
    for (const cv::Mat* frame : {&large, &small, &gravel, &large}) {
      gpu.extract(gray_view(*frame), stream_.get(), &f);
      if (frame == &large) {
        ASSERT_GT(f.keypoints.size(), 8u * cuda::kDescribedRowsPerChunk);
      }
      expect_rows_equal_the_device(gpu, f);
      // And the same frame alone, in a fresh extractor: all fields, bit for bit.
      CudaSiftExtractor alone(params);
      Features fresh;
      alone.extract(gray_view(*frame), stream_.get(), &fresh);
      EXPECT_TRUE(bit_identical(f, fresh));
    }
  }
}

TEST_F(CudaResults, RowsOfTheOlderFrameArriveWholeWithAFrameInFlightBehindIt) {
  const cv::Mat gravel = load_gray("gravel.png");
  ASSERT_FALSE(gravel.empty());
  const cv::Mat large = resized(gravel, 2 * gravel.cols, 2 * gravel.rows);
  CudaSiftExtractor gpu(video_sift_params());
  CudaSiftExtractor alone(video_sift_params());
  Features expected_large, expected_gravel;
  alone.extract(gray_view(large), stream_.get(), &expected_large);
  alone.extract(gray_view(gravel), stream_.get(), &expected_gravel);

  Features f;
  gpu.begin(gray_view(large), stream_.get());
  gpu.begin(gray_view(gravel), stream_.get());
  // Every field of every keypoint and row, the format, size and counts (bit_identical).
  gpu.finish(&f);
  EXPECT_TRUE(bit_identical(f, expected_large));
  gpu.finish(&f);
  EXPECT_TRUE(bit_identical(f, expected_gravel));
  expect_rows_equal_the_device(gpu, f);
}

TEST_F(CudaResults, AFrameWithoutKeypointsLeavesNoRows) {
  const cv::Mat flat(64, 64, CV_8UC1, cv::Scalar(77));
  CudaSiftExtractor gpu(video_sift_params());
  const cv::Mat gravel = load_gray("gravel.png");
  Features f;
  gpu.extract(gray_view(gravel), stream_.get(), &f);
  ASSERT_GT(f.float_descriptors.size(), 0u);
  gpu.extract(gray_view(flat), stream_.get(), &f);
  EXPECT_TRUE(f.keypoints.empty());
  EXPECT_TRUE(f.float_descriptors.empty());
}

}  // namespace
}  // namespace gpusift::testing
