// SPDX-License-Identifier: LGPL-2.1-or-later
// The orientation kernel adds its fixed-point histograms as two halves where a window is small
// enough for neither to wrap, else with a carry between the words: the same bits either way. The
// noise's gradients make addends of up to 2^32.5, so the carried sums often carry.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "device_array.h"
#include "feature_kernels.h"
#include "gpu_fixture.h"
#include "gpusift/sift_orientation.h"
#include "noise_octave.h"

namespace gpusift::testing {
namespace {

class CudaOrientation : public CudaTest {};

struct OrientationResult {
  std::vector<int> counts;
  std::vector<float> angles;
};

TEST_F(CudaOrientation, HalvesAndCarriedSumsGiveTheSameBits) {
  const int width = 401, height = 301, stride = 416, layers = 3;
  std::mt19937 random(12);
  const NoiseOctave octave(width, height, stride, layers, random);
  const cuda::OctaveTable& table = octave.table();

  // Mostly windows of a few pixels, some clipped by the border; every 25th a window of more than
  // 2^15 samples around the centre, which takes the carry either way.
  std::vector<cuda::Candidate> candidates;
  std::uniform_int_distribution<int> row(0, height - 1), col(0, width - 1), offset(-8, 8);
  std::uniform_real_distribution<float> size(2.f, 16.f);
  int carried_windows = 0;
  for (int i = 0; i < 400; ++i) {
    cuda::Candidate c{};
    c.layer = 1 + i % layers;
    const bool large = i % 25 == 0;
    c.row = large ? height / 2 + offset(random) : row(random);
    c.col = large ? width / 2 + offset(random) : col(random);
    c.keypoint = Keypoint{static_cast<float>(c.col),
                          static_cast<float>(c.row),
                          large ? 46.f : size(random),
                          -1.f,
                          1.f,
                          c.layer << 8,
                          -1};
    const int radius = orientation_window(c.row, c.col, c.keypoint.size * 0.5f).radius;
    if (large) {
      ASSERT_FALSE(cuda::square_window_fits_halves(radius));
      ASSERT_TRUE(c.row - radius >= 1 && c.row + radius <= height - 2 && c.col - radius >= 1 &&
                  c.col + radius <= width - 2);
      ++carried_windows;
    }
    candidates.push_back(c);
  }
  ASSERT_GT(carried_windows, 0);
  const int n = static_cast<int>(candidates.size());
  std::vector<uint64_t> keys(n);
  std::vector<uint32_t> indices(n);
  for (int i = 0; i < n; ++i) {
    keys[i] = i;
    indices[i] = i;
  }
  const DeviceArray<cuda::Candidate> on_device(candidates);
  const DeviceArray<uint64_t> sorted_keys(keys);
  const DeviceArray<uint32_t> sorted_indices(indices);
  const DeviceArray<int> count(std::vector<int>{n});

  auto assign = [&](cuda::HistogramSums sums) {
    const DeviceArray<int> counts(std::vector<int>(n + 1, 0));
    const DeviceArray<float> angles(std::vector<float>(n * cuda::kMaxOrientationPeaks, -1.f));
    cuda::assign_orientations(table, on_device.data, sorted_keys.data, sorted_indices.data,
                              count.data, n, 0, counts.data, angles.data, stream_.get(), sums);
    EXPECT_EQ(cudaStreamSynchronize(stream_.get()), cudaSuccess);
    return OrientationResult{counts.download(), angles.download()};
  };
  const OrientationResult halves = assign(cuda::HistogramSums::kHalvesWhereTheyFit);
  const OrientationResult carried = assign(cuda::HistogramSums::kAlwaysWithCarry);
  EXPECT_EQ(halves.counts, carried.counts);
  EXPECT_EQ(std::memcmp(halves.angles.data(), carried.angles.data(),
                        sizeof(float) * halves.angles.size()),
            0);
  // Every window has samples, so every candidate has at least its highest bin as a peak.
  for (int i = 0; i < n; ++i)
    EXPECT_GT(halves.counts[i], 0) << "candidate " << i;
}

// The scan after it reads capacity + 1 counts, which the kernel writes whatever they held: 0 for
// a repeated key and past the list.
TEST_F(CudaOrientation, WritesEveryCountTheScanReads) {
  const int width = 64, height = 48, stride = 64, layers = 3;
  std::mt19937 random(5);
  const NoiseOctave octave(width, height, stride, layers, random);
  const int n = 6, capacity = 1000;
  std::vector<cuda::Candidate> candidates(n);
  for (int i = 0; i < n; ++i) {
    cuda::Candidate& c = candidates[i];
    c.layer = 1;
    c.row = 10 + 4 * i;
    c.col = 12 + 6 * i;
    c.keypoint = Keypoint{
        static_cast<float>(c.col), static_cast<float>(c.row), 4.f, -1.f, 1.f, c.layer << 8, -1};
  }
  const std::vector<uint64_t> keys{1, 2, 2, 3, 3, 3};
  std::vector<uint32_t> indices(n);
  for (int i = 0; i < n; ++i)
    indices[i] = i;
  const DeviceArray<cuda::Candidate> on_device(candidates);
  const DeviceArray<uint64_t> sorted_keys(keys);
  const DeviceArray<uint32_t> sorted_indices(indices);
  const DeviceArray<int> count(std::vector<int>{n});
  const DeviceArray<int> counts(std::vector<int>(capacity + 1, 99));
  const DeviceArray<float> angles(std::vector<float>(capacity * cuda::kMaxOrientationPeaks));
  cuda::assign_orientations(octave.table(), on_device.data, sorted_keys.data, sorted_indices.data,
                            count.data, capacity, 0, counts.data, angles.data, stream_.get());
  ASSERT_EQ(cudaStreamSynchronize(stream_.get()), cudaSuccess);
  const std::vector<int> written = counts.download();
  for (int i : {0, 1, 3})
    EXPECT_GT(written[i], 0) << "candidate " << i;
  for (int i : {2, 4, 5})
    EXPECT_EQ(written[i], 0) << "repeated key " << i;
  for (int i = n; i <= capacity; ++i)
    ASSERT_EQ(written[i], 0) << "past the list, " << i;
}

}  // namespace
}  // namespace gpusift::testing
