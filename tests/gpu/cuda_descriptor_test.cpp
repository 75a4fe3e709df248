// SPDX-License-Identifier: LGPL-2.1-or-later
// The descriptor kernel adds its fixed-point histograms as two halves where a window is small
// enough for neither to wrap, else with a carry between the words: the same bits either way.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "device_array.h"
#include "feature_kernels.h"
#include "gpu_fixture.h"
#include "gpusift/sift_descriptor.h"
#include "noise_octave.h"

namespace gpusift::testing {
namespace {

class CudaDescriptor : public CudaTest {};

TEST_F(CudaDescriptor, HalvesAndCarriedSumsGiveTheSameBits) {
  const int width = 181, height = 137, stride = 192, layers = 3;
  std::mt19937 random(9);
  const NoiseOctave octave(width, height, stride, layers, random);
  const cuda::OctaveTable& table = octave.table();

  // Sizes from a few pixels to a window past the halves' limit.
  std::vector<Keypoint> keypoints;
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  for (int i = 0; i < 300; ++i) {
    const float size = i % 50 == 0 ? 40.f : 2.f + 14.f * unit(random);
    const int layer = 1 + i % layers;
    keypoints.push_back(Keypoint{width * unit(random), height * unit(random), size,
                                 360.f * unit(random), 1.f, layer << 8 | 128 << 16, -1});
  }
  // Both sums must be taken, or the comparison below would compare the carry with itself.
  int fitting = 0;
  for (const Keypoint& k : keypoints)
    fitting += cuda::square_window_fits_halves(
        descriptor_window(k.x, k.y, k.angle, k.size * 0.5f, width, height).radius);
  ASSERT_GT(fitting, 0);
  ASSERT_LT(fitting, static_cast<int>(keypoints.size()));
  const DeviceArray<Keypoint> on_device(keypoints);
  const DeviceArray<int> count(std::vector<int>{static_cast<int>(keypoints.size())});
  const std::vector<float> zeros(keypoints.size() * kDescriptorLength, -1.f);
  const DeviceArray<float> halves(zeros), carried(zeros);
  const int n = static_cast<int>(keypoints.size());
  cuda::describe_keypoints(table, on_device.data, count.data, n, 0, DescriptorFormat::kFloat,
                           halves.data, nullptr, stream_.get(),
                           cuda::HistogramSums::kHalvesWhereTheyFit);
  cuda::describe_keypoints(table, on_device.data, count.data, n, 0, DescriptorFormat::kFloat,
                           carried.data, nullptr, stream_.get(),
                           cuda::HistogramSums::kAlwaysWithCarry);
  ASSERT_EQ(cudaStreamSynchronize(stream_.get()), cudaSuccess);
  const std::vector<float> a = halves.download(), b = carried.download();
  EXPECT_EQ(std::memcmp(a.data(), b.data(), sizeof(float) * a.size()), 0);
  int described = 0;
  for (size_t i = 0; i < a.size(); i += kDescriptorLength)
    described += a[i] >= 0.f;
  EXPECT_EQ(described, n);
}

}  // namespace
}  // namespace gpusift::testing
