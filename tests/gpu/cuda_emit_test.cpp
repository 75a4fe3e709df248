// SPDX-License-Identifier: LGPL-2.1-or-later
// The orientation's peak counts, scanned, place one keypoint per peak in candidate and peak
// order, up to the keypoint capacity.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "device_array.h"
#include "feature_kernels.h"
#include "gpu_fixture.h"
#include "list_primitives.h"

namespace gpusift::testing {
namespace {

class CudaEmit : public CudaTest {};

struct EmitCase {
  int candidates, capacity, keypoint_capacity;
};

TEST_F(CudaEmit, WritesEveryPeakInOrderUpToTheCapacity) {
  std::mt19937 random(5);
  // From no candidate to many, with counts past the list's capacity, and keypoint capacities above
  // and below the total.
  for (const EmitCase c :
       {EmitCase{0, 100, 100}, EmitCase{1, 1, 4}, EmitCase{3000, 4096, 8000},
        EmitCase{20000, 20000, 30000}, EmitCase{20000, 20000, 700}, EmitCase{9000, 8192, 16384}}) {
    std::vector<cuda::Candidate> candidates(std::max(c.candidates, 1));
    std::vector<uint32_t> sorted_indices(candidates.size());
    for (size_t i = 0; i < candidates.size(); ++i) {
      candidates[i].keypoint = Keypoint{static_cast<float>(i), 2.f, 3.f, -1.f, 0.5f, 0, -1};
      sorted_indices[i] = static_cast<uint32_t>(candidates.size() - 1 - i);
    }
    // Mostly one or two peaks, some none (repeats), a few many.
    std::discrete_distribution<int> peaks_of(
        {10, 60, 25, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2});
    std::uniform_real_distribution<float> degrees(0.f, 360.f);
    const int listed = std::min(c.candidates, c.capacity);
    // The scan's input: zero from the count on, its last item included.
    std::vector<int> counts(std::max<size_t>(candidates.size(), c.capacity) + 1, 0);
    std::vector<float> angles(candidates.size() * cuda::kMaxOrientationPeaks, -2.f);
    for (int i = 0; i < listed; ++i) {
      counts[i] = peaks_of(random);
      for (int p = 0; p < counts[i]; ++p)
        angles[i * cuda::kMaxOrientationPeaks + p] = degrees(random);
    }
    std::vector<Keypoint> expected;
    for (int i = 0; i < listed; ++i)
      for (int p = 0; p < counts[i]; ++p) {
        Keypoint k = candidates[sorted_indices[i]].keypoint;
        k.angle = angles[i * cuda::kMaxOrientationPeaks + p];
        expected.push_back(k);
      }
    const int total = static_cast<int>(expected.size());
    const int kept = std::min(total, c.keypoint_capacity);
    expected.resize(kept);

    const DeviceArray<cuda::Candidate> on_device(candidates);
    const DeviceArray<uint32_t> indices(sorted_indices);
    const DeviceArray<int> count(std::vector<int>{c.candidates});
    const DeviceArray<int> peak_counts(counts);
    const DeviceArray<int> offsets(counts.size());
    const size_t scratch_bytes = cuda::list_scratch_bytes(c.capacity);
    const DeviceArray<uint8_t> scratch(scratch_bytes);
    cuda::exclusive_sum(cuda::Scratch{scratch.data, scratch_bytes}, peak_counts.data, offsets.data,
                        c.capacity + 1, stream_.get());
    const DeviceArray<float> peak_angles(angles);
    const Keypoint untouched{-7.f, -7.f, -7.f, -7.f, -7.f, -7, -7};
    const DeviceArray<Keypoint> keypoints(std::vector<Keypoint>(c.keypoint_capacity, untouched));
    const DeviceArray<int> emitted(std::vector<int>{-1, -1});
    cuda::emit_keypoints(on_device.data, indices.data, count.data, c.capacity, peak_counts.data,
                         peak_angles.data, offsets.data, keypoints.data, c.keypoint_capacity,
                         emitted.data, stream_.get());
    ASSERT_EQ(cudaStreamSynchronize(stream_.get()), cudaSuccess);

    EXPECT_EQ(emitted.download(), (std::vector<int>{total, kept})) << c.candidates;
    const std::vector<Keypoint> written = keypoints.download();
    ASSERT_EQ(std::memcmp(written.data(), expected.data(), sizeof(Keypoint) * kept), 0)
        << c.candidates << " candidates";
    for (int s = kept; s < c.keypoint_capacity; ++s)
      ASSERT_EQ(std::memcmp(&written[s], &untouched, sizeof(Keypoint)), 0) << "slot " << s;
  }
}

}  // namespace
}  // namespace gpusift::testing
