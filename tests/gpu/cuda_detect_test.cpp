// SPDX-License-Identifier: LGPL-2.1-or-later
// The extractor detects its first octaves' extrema on a stream of their own while it builds the
// small octaves, and the rest at the end, into one list: launches on octave ranges must add up to
// one launch over the whole table, whichever number of rows a thread tests.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "device_array.h"
#include "feature_kernels.h"
#include "gpu_fixture.h"
#include "gpusift/error.h"
#include "gpusift/sift_extrema.h"
#include "gpusift/sift_scale_space.h"

namespace gpusift::testing {
namespace {

constexpr int kLayers = 3;
constexpr int kOctaves = 3;
constexpr int kCapacity = 1 << 16;

// Random DoG stacks, halving in size from octave to octave: extrema everywhere.
class RandomPyramid {
 public:
  RandomPyramid(int width, int height) {
    std::mt19937 random(5);
    std::uniform_real_distribution<float> value(-30.f, 30.f);
    for (int o = 0; o < kOctaves; ++o) {
      const int w = width >> o, h = height >> o;
      const size_t plane = static_cast<size_t>(w) * h;
      std::vector<float> dogs(plane * dog_levels(kLayers));
      for (float& v : dogs)
        v = value(random);
      stacks_.push_back(std::make_unique<DeviceArray<float>>(dogs));
      table.dog[o] = LayerStackView{stacks_.back()->data, w, h, w, plane};
      table.gaussian[o] = table.dog[o];
    }
    table.count = kOctaves;
    key = cuda::candidate_key_layout(width, height, kLayers, kOctaves);
  }
  cuda::OctaveTable table{};
  cuda::CandidateKeyLayout key{};

 private:
  std::vector<std::unique_ptr<DeviceArray<float>>> stacks_;
};

class CandidateBuffers {
 public:
  explicit CandidateBuffers(const cuda::CandidateKeyLayout& key)
      : items_(kCapacity),
        keys_(kCapacity),
        indices_(kCapacity),
        count_(std::vector<int>{0}),
        list{items_.data, keys_.data, indices_.data, count_.data, kCapacity, key} {}
  int count() const { return count_.download()[0]; }
  std::vector<uint64_t> sorted_keys() const {
    std::vector<uint64_t> keys = keys_.download();
    keys.resize(std::min(count(), kCapacity));
    std::sort(keys.begin(), keys.end());
    return keys;
  }
  // The candidates in key order, as bytes: refinement's results, bit for bit.
  std::vector<uint8_t> candidate_bytes_by_key() const {
    const int n = std::min(count(), kCapacity);
    const std::vector<uint64_t> keys = keys_.download();
    const std::vector<cuda::Candidate> items = items_.download();
    std::vector<int> order(n);
    for (int i = 0; i < n; ++i)
      order[i] = i;
    std::sort(order.begin(), order.end(), [&](int a, int b) { return keys[a] < keys[b]; });
    std::vector<uint8_t> bytes(sizeof(cuda::Candidate) * n);
    for (int i = 0; i < n; ++i)
      std::memcpy(bytes.data() + sizeof(cuda::Candidate) * i, &items[order[i]],
                  sizeof(cuda::Candidate));
    return bytes;
  }

 private:
  DeviceArray<cuda::Candidate> items_;
  DeviceArray<uint64_t> keys_;
  DeviceArray<uint32_t> indices_;
  DeviceArray<int> count_;

 public:
  const cuda::CandidateList list;
};

class CudaDetect : public CudaTest {
 protected:
  const RefineSettings refine_{kLayers, 0.04f, 10.f, 1.6f, 0};
  const float threshold_ = extremum_prethreshold(0.04f, kLayers);
};

TEST_F(CudaDetect, OctaveRangesOnTwoStreamsEqualOneLaunch) {
  const RandomPyramid pyramid(301, 203);
  CandidateBuffers whole(pyramid.key), split(pyramid.key);
  cuda::detect_extrema(pyramid.table, {0, kOctaves}, refine_, threshold_, whole.list,
                       stream_.get());
  cudaStream_t other = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), cudaSuccess);
  cuda::detect_extrema(pyramid.table, {0, 1}, refine_, threshold_, split.list, other);
  cuda::detect_extrema(pyramid.table, {1, kOctaves}, refine_, threshold_, split.list,
                       stream_.get());
  ASSERT_EQ(cudaStreamSynchronize(other), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream_.get()), cudaSuccess);
  cudaStreamDestroy(other);

  const std::vector<uint64_t> expected = whole.sorted_keys();
  ASSERT_GT(expected.size(), 100u);
  EXPECT_EQ(split.sorted_keys(), expected);
  // Every octave found some, or the split could drop one unnoticed.
  for (int o = 0; o < kOctaves; ++o)
    EXPECT_TRUE(std::any_of(
        expected.begin(), expected.end(),
        [&](uint64_t k) { return static_cast<int>(k >> pyramid.key.octave_shift) == o; }))
        << "octave " << o;
}

// A launch of few blocks gives each thread one row, a larger one four: the same candidates. The
// sizes leave partial tiles at the right and bottom of every octave.
TEST_F(CudaDetect, OneRowAndFourRowsAThreadFindTheSameCandidates) {
  const RandomPyramid pyramid(301, 203);
  CandidateBuffers four(pyramid.key), one(pyramid.key);
  EXPECT_EQ(cuda::detect_extrema(pyramid.table, {0, kOctaves}, refine_, threshold_, four.list,
                                 stream_.get(), cuda::DetectRows::kFour),
            4);
  EXPECT_EQ(cuda::detect_extrema(pyramid.table, {0, kOctaves}, refine_, threshold_, one.list,
                                 stream_.get(), cuda::DetectRows::kOne),
            1);
  ASSERT_EQ(cudaStreamSynchronize(stream_.get()), cudaSuccess);
  const std::vector<uint64_t> expected = four.sorted_keys();
  ASSERT_GT(expected.size(), 100u);
  EXPECT_EQ(one.sorted_keys(), expected);
  EXPECT_EQ(one.candidate_bytes_by_key(), four.candidate_bytes_by_key());
}

// Left to the launch's size, a launch that the GPU holds in about a wave of four-row blocks
// gives each thread one row, and a larger one four: 1080p's octave 0 takes 6120 four-row blocks,
// more than the 1.5 waves of any current GPU (990 on an H100).
TEST_F(CudaDetect, ShortLaunchesTestOneRowAThreadAndLargeOnesFour) {
  const RandomPyramid small(301, 203), large(1920, 1080);
  CandidateBuffers out(small.key), large_out(large.key);
  EXPECT_EQ(cuda::detect_extrema(small.table, {0, kOctaves}, refine_, threshold_, out.list,
                                 stream_.get()),
            1);
  EXPECT_EQ(
      cuda::detect_extrema(large.table, {0, 1}, refine_, threshold_, large_out.list, stream_.get()),
      4);
  ASSERT_EQ(cudaStreamSynchronize(stream_.get()), cudaSuccess);
  EXPECT_GT(out.count(), 100);
}

TEST_F(CudaDetect, EmptyRangeFindsNothing) {
  const RandomPyramid pyramid(64, 48);
  CandidateBuffers out(pyramid.key);
  EXPECT_EQ(
      cuda::detect_extrema(pyramid.table, {2, 2}, refine_, threshold_, out.list, stream_.get()), 0);
  ASSERT_EQ(cudaStreamSynchronize(stream_.get()), cudaSuccess);
  EXPECT_EQ(out.count(), 0);
}

TEST_F(CudaDetect, RangeOutsideTheTableIsRejected) {
  const RandomPyramid pyramid(64, 48);
  CandidateBuffers out(pyramid.key);
  for (const cuda::OctaveRange range :
       {cuda::OctaveRange{-1, 1}, cuda::OctaveRange{0, 4}, cuda::OctaveRange{2, 1}}) {
    try {
      cuda::detect_extrema(pyramid.table, range, refine_, threshold_, out.list, stream_.get());
      ADD_FAILURE() << "range " << range.first << ".." << range.end << " was accepted";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::kInvalidArgument);
    }
  }
  ASSERT_EQ(cudaStreamSynchronize(stream_.get()), cudaSuccess);
  EXPECT_EQ(out.count(), 0);
}

}  // namespace
}  // namespace gpusift::testing
