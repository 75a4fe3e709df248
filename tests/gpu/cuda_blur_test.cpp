// SPDX-License-Identifier: LGPL-2.1-or-later
// The scale space's Gaussian blur: the one-pass kernels, taken for the usual radii, give the same
// bits as the two-pass kernels for any radius, on odd sizes, across tiles, with the difference of
// Gaussians and with the decimation that starts an octave.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpu_fixture.h"
#include "gpusift/color.h"
#include "gpusift/error.h"
#include "pyramid_kernels.h"

namespace gpusift::testing {
namespace {

class CudaBlur : public CudaTest {};

struct DevicePlane {
  explicit DevicePlane(int width, int height)
      : image{nullptr, width, height, (width + 31) / 32 * 32} {
    EXPECT_EQ(cudaMalloc(&image.data, bytes()), cudaSuccess);
    cudaMemset(image.data, 0, bytes());
    cudaDeviceSynchronize();
  }
  // cudaMemcpy from pageable memory may return before its DMA lands, and the test's stream does
  // not wait for the legacy stream: hence the device synchronisations.
  void upload(const std::vector<float>& host) {
    ASSERT_EQ(cudaMemcpy(image.data, host.data(), bytes(), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  // Pixel values drawn uniformly from 0 to 255, padding included.
  void upload_random(std::mt19937& random) {
    std::uniform_real_distribution<float> pixel(0.f, 255.f);
    std::vector<float> host(static_cast<size_t>(image.stride) * image.height);
    for (float& value : host)
      value = pixel(random);
    upload(host);
  }
  ~DevicePlane() { cudaFree(image.data); }
  size_t bytes() const { return sizeof(float) * image.stride * image.height; }
  std::vector<float> download() const {
    std::vector<float> host(static_cast<size_t>(image.stride) * image.height);
    cudaMemcpy(host.data(), image.data, bytes(), cudaMemcpyDeviceToHost);
    return host;
  }
  cuda::DeviceImage image;
};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Small odd sizes (8-row tiles), then the first odd heights at which a 1900-pixel-wide level
// takes the 16- and the 32-row tile on this GPU (they depend on its multiprocessor count).
std::vector<std::pair<int, int>> sizes_for_every_tile_height() {
  std::vector<std::pair<int, int>> sizes{{1, 1}, {7, 5}, {131, 97}, {333, 70}};
  const int wide = 1900;
  for (const int tile_height : {16, 32}) {
    for (int h = 1; h < 1 << 16; h += 2) {
      if (cuda::one_pass_tile_height(wide, h) == tile_height) {
        sizes.emplace_back(wide, h);
        break;
      }
    }
  }
  return sizes;
}

TEST_F(CudaBlur, OnePassKernelsEqualTheKernelsForAnyRadius) {
  std::mt19937 random(7);
  std::set<int> radii, tile_heights;
  for (const auto& [w, h] : sizes_for_every_tile_height()) {
    tile_heights.insert(cuda::one_pass_tile_height(w, h));
    DevicePlane source(w, h), scratch(w, h), one_pass_out(w, h), one_pass_dog(w, h), any_out(w, h),
        any_dog(w, h);
    source.upload_random(random);
    for (float sigma = 0.2f; sigma < 4.6f; sigma += 0.1f) {
      const cuda::GaussianTaps taps = cuda::make_gaussian_taps(sigma);
      radii.insert(taps.radius);
      cuda::gaussian_blur(source.image, scratch.image, one_pass_out.image, taps,
                          &one_pass_dog.image, stream_.get());
      cuda::gaussian_blur_any_radius(source.image, scratch.image, any_out.image, taps,
                                     &any_dog.image, stream_.get());
      ASSERT_EQ(cudaStreamSynchronize(stream_.get()), cudaSuccess);
      EXPECT_TRUE(same_bits(one_pass_out.download(), any_out.download()))
          << w << "x" << h << " sigma " << sigma << " radius " << taps.radius;
      EXPECT_TRUE(same_bits(one_pass_dog.download(), any_dog.download()))
          << w << "x" << h << " sigma " << sigma << " radius " << taps.radius;
    }
  }
  // Every radius with a one-pass kernel, and some past them; every tile height.
  EXPECT_TRUE(radii.count(1) && radii.count(16) && radii.count(18));
  EXPECT_EQ(tile_heights, (std::set<int>{8, 16, 32}));
}

// What the extractor does behind a banded upload for octave 0's later levels: each level in
// bands of rows on its tiles, every tile height, gives one launch's bits.
TEST_F(CudaBlur, OneLevelInRowBandsEqualsOneLaunch) {
  std::mt19937 random(23);
  for (const auto& [w, h] : sizes_for_every_tile_height()) {
    const int tile = cuda::one_pass_tile_height(w, h);
    DevicePlane source(w, h), scratch(w, h), whole(w, h), whole_dog(w, h), banded(w, h),
        banded_dog(w, h);
    source.upload_random(random);
    const cuda::GaussianTaps taps = cuda::make_gaussian_taps(0.97f);
    cuda::gaussian_blur(source.image, scratch.image, whole.image, taps, &whole_dog.image,
                        stream_.get());
    for (int first = 0; first < h; first += 3 * tile) {
      cuda::gaussian_blur_rows(source.image, banded.image, taps, &banded_dog.image,
                               cuda::RowRange{first, first + 3 * tile}, stream_.get());
    }
    cuda::gaussian_blur_rows(source.image, banded.image, taps, &banded_dog.image,
                             cuda::RowRange{tile, tile}, stream_.get());  // no rows
    ASSERT_EQ(cudaStreamSynchronize(stream_.get()), cudaSuccess);
    EXPECT_TRUE(same_bits(banded.download(), whole.download())) << w << "x" << h;
    EXPECT_TRUE(same_bits(banded_dog.download(), whole_dog.download())) << w << "x" << h;
    if (h > tile) {
      try {
        cuda::gaussian_blur_rows(source.image, banded.image, taps, nullptr,
                                 cuda::RowRange{tile / 2, h}, stream_.get());
        ADD_FAILURE() << "no error for a band that starts inside a tile, " << w << "x" << h;
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
      }
    }
    try {
      cuda::gaussian_blur_rows(source.image, banded.image, cuda::make_gaussian_taps(6.f), nullptr,
                               cuda::RowRange{}, stream_.get());
      ADD_FAILURE() << "no error for a radius without a one-pass kernel";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    }
  }
}

TEST_F(CudaBlur, DecimateAndBlurEqualsDecimatingThenBlurring) {
  std::mt19937 random(11);
  const int parent_widths[] = {2, 3, 15, 263, 700, 3841},
            parent_heights[] = {2, 9, 4, 130, 141, 2161};
  for (int size_index = 0; size_index < 6; ++size_index) {
    const int pw = parent_widths[size_index], ph = parent_heights[size_index];
    const int w = pw / 2, h = ph / 2;
    DevicePlane parent(pw, ph), scratch(w, h), level0(w, h), out(w, h), dog(w, h),
        expected_level0(w, h), expected_out(w, h), expected_dog(w, h);
    parent.upload_random(random);
    for (float sigma : {0.9f, 1.2263f, 1.9466f, 3.09f, 4.5f}) {
      const cuda::GaussianTaps taps = cuda::make_gaussian_taps(sigma);
      cuda::decimate_and_blur(parent.image, level0.image, scratch.image, out.image, taps, dog.image,
                              stream_.get());
      cuda::decimate_2x(parent.image, expected_level0.image, stream_.get());
      cuda::gaussian_blur_any_radius(expected_level0.image, scratch.image, expected_out.image, taps,
                                     &expected_dog.image, stream_.get());
      ASSERT_EQ(cudaStreamSynchronize(stream_.get()), cudaSuccess);
      EXPECT_TRUE(same_bits(level0.download(), expected_level0.download()))
          << w << "x" << h << " sigma " << sigma;
      EXPECT_TRUE(same_bits(out.download(), expected_out.download()))
          << w << "x" << h << " sigma " << sigma;
      EXPECT_TRUE(same_bits(dog.download(), expected_dog.download()))
          << w << "x" << h << " sigma " << sigma;
    }
  }
}

// The sigmas whose radius pairs the extractor makes at once: the video mode's first levels (3, 3)
// and tails (5, 6), OpenCV's sigma's first levels without (6, 5) and with upscaling (5, 5), and
// the ends of the range the two-level kernels cover.
const std::pair<float, float> kTwoLevelSigmas[] = {
    {0.6245f, 0.6131f}, {1.2263f, 1.5450f}, {1.5199f, 1.2263f}, {1.2490f, 1.2263f},
    {0.2f, 0.2f},       {1.8f, 1.8f},       {0.2f, 0.4f}};

// 0: the kernel's own choice for the size.
const int kTwoLevelTileHeights[] = {cuda::kTwoLevelShortTileRows, cuda::kTwoLevelTallTileRows, 0};

struct TwoLevelPlanes {
  TwoLevelPlanes(int w, int h) : level(w, h), dog(w, h), first_dog(w, h) {}
  cuda::TwoLevelTargets targets() const { return {level.image, dog.image, first_dog.image}; }
  DevicePlane level, dog, first_dog;
};

void expect_same_planes(const TwoLevelPlanes& actual, const TwoLevelPlanes& expected,
                        const std::string& what) {
  EXPECT_TRUE(same_bits(actual.level.download(), expected.level.download())) << what << " level";
  EXPECT_TRUE(same_bits(actual.dog.download(), expected.dog.download())) << what << " dog";
  EXPECT_TRUE(same_bits(actual.first_dog.download(), expected.first_dog.download()))
      << what << " first dog";
}

// From gray8 bytes in either range: limited-range bytes are read at full range, as the float
// image made by full_range_luma() holds them.
TEST_F(CudaBlur, TwoLevelsAtOnceEqualTwoBlursFromFloatsAndFromGray8) {
  std::mt19937 random(13);
  std::uniform_int_distribution<int> byte(0, 255);
  const std::pair<int, int> sizes[] = {{1, 1},  {2, 3},    {3, 2},    {7, 5},
                                       {5, 17}, {131, 97}, {333, 70}, {1900, 37}};
  for (const auto& [w, h] : sizes)
    for (const LumaRange range : {LumaRange::kFull, LumaRange::kLimited}) {
      const size_t pitch = w + 3;  // rows that start on no particular boundary
      std::vector<uint8_t> bytes(pitch * h);
      for (uint8_t& value : bytes)
        value = static_cast<uint8_t>(byte(random));
      DevicePlane source(w, h), scratch(w, h), first(w, h);
      std::vector<float> floats(static_cast<size_t>(source.image.stride) * h);
      for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x)
          floats[static_cast<size_t>(y) * source.image.stride + x] =
              luma_at_full_range(bytes[y * pitch + x], range);
      }
      source.upload(floats);
      uint8_t* frame = nullptr;
      ASSERT_EQ(cudaMalloc(&frame, bytes.size()), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(frame, bytes.data(), bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
      for (const auto& [first_sigma, second_sigma] : kTwoLevelSigmas) {
        const cuda::GaussianTaps a = cuda::make_gaussian_taps(first_sigma);
        const cuda::GaussianTaps b = cuda::make_gaussian_taps(second_sigma);
        ASSERT_TRUE(cuda::blurs_two_levels_at_once(a, b)) << a.radius << " " << b.radius;
        TwoLevelPlanes expected(w, h), from_floats(w, h), from_bytes(w, h);
        cuda::gaussian_blur(source.image, scratch.image, first.image, a, &expected.first_dog.image,
                            stream_.get());
        cuda::gaussian_blur(first.image, scratch.image, expected.level.image, b,
                            &expected.dog.image, stream_.get());
        for (const int tile_rows : kTwoLevelTileHeights) {
          cuda::blur_two_levels(source.image, a, b, from_floats.targets(), stream_.get(),
                                tile_rows);
          cuda::blur_two_levels_from_gray8(frame, pitch, range, a, b, from_bytes.targets(),
                                           stream_.get(), cuda::RowRange{}, tile_rows);
          ASSERT_EQ(cudaStreamSynchronize(stream_.get()), cudaSuccess);
          const std::string what = std::string(range == LumaRange::kLimited ? "limited " : "") +
                                   std::to_string(w) + "x" + std::to_string(h) + " radii " +
                                   std::to_string(a.radius) + ", " + std::to_string(b.radius) +
                                   ", tiles of " + std::to_string(tile_rows) + " rows";
          expect_same_planes(from_floats, expected, what + " from floats");
          expect_same_planes(from_bytes, expected, what + " from gray8");
        }
      }
      cudaFree(frame);
    }
}

// What the extractor does while a large frame is still being uploaded: the rows band by band.
TEST_F(CudaBlur, TwoLevelsFromGray8InRowBandsEqualOneLaunch) {
  std::mt19937 random(19);
  std::uniform_int_distribution<int> byte(0, 255);
  const int w = 333, h = 101;
  std::vector<uint8_t> bytes(static_cast<size_t>(w) * h);
  for (uint8_t& value : bytes)
    value = static_cast<uint8_t>(byte(random));
  uint8_t* frame = nullptr;
  ASSERT_EQ(cudaMalloc(&frame, bytes.size()), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(frame, bytes.data(), bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
  const cuda::GaussianTaps a = cuda::make_gaussian_taps(0.6245f),
                           b = cuda::make_gaussian_taps(0.6131f);
  TwoLevelPlanes whole(w, h);
  cuda::blur_two_levels_from_gray8(frame, w, LumaRange::kFull, a, b, whole.targets(),
                                   stream_.get());
  for (const int tile : {cuda::kTwoLevelShortTileRows, cuda::kTwoLevelTallTileRows}) {
    TwoLevelPlanes banded(w, h);
    for (const cuda::RowRange rows :
         {cuda::RowRange{0, tile}, cuda::RowRange{tile, 2 * tile},
          cuda::RowRange{2 * tile, 2 * tile},  // none
          cuda::RowRange{2 * tile, 4 * tile}, cuda::RowRange{4 * tile, 1000}})
      cuda::blur_two_levels_from_gray8(frame, w, LumaRange::kFull, a, b, banded.targets(),
                                       stream_.get(), rows, tile);
    ASSERT_EQ(cudaStreamSynchronize(stream_.get()), cudaSuccess);
    expect_same_planes(banded, whole, "bands of " + std::to_string(tile) + "-row tiles");
    try {
      cuda::blur_two_levels_from_gray8(frame, w, LumaRange::kFull, a, b, banded.targets(),
                                       stream_.get(), cuda::RowRange{tile / 2, tile}, tile);
      ADD_FAILURE() << "no error for a band that starts inside a tile of " << tile << " rows";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    }
  }
  cudaFree(frame);
}

TEST_F(CudaBlur, TwoLevelTilesAreShortOrTall) {
  const cuda::GaussianTaps a = cuda::make_gaussian_taps(1.2263f),
                           b = cuda::make_gaussian_taps(1.5450f);
  DevicePlane plane(64, 64);
  TwoLevelPlanes out(64, 64);
  for (const int tile_rows : {-16, 8, 24, 64}) {
    try {
      cuda::blur_two_levels(plane.image, a, b, out.targets(), stream_.get(), tile_rows);
      ADD_FAILURE() << "no error for tiles of " << tile_rows << " rows";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << tile_rows;
    }
  }
  // Small levels keep the short tiles, which give more blocks, and so do narrow halos; a 4K
  // level of radii 5 and 6 takes the tall ones where a block can have their 57 KiB of shared
  // memory.
  EXPECT_EQ(cuda::two_level_tile_rows(a, b, 64, 64), cuda::kTwoLevelShortTileRows);
  const cuda::GaussianTaps narrow = cuda::make_gaussian_taps(0.6245f);  // radius 3
  EXPECT_EQ(cuda::two_level_tile_rows(narrow, narrow, 3840, 2160), cuda::kTwoLevelShortTileRows);
  int device = 0, shared_bytes = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&shared_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
            cudaSuccess);
  EXPECT_EQ(cuda::two_level_tile_rows(a, b, 3840, 2160),
            shared_bytes >= 64 * 1024 ? cuda::kTwoLevelTallTileRows : cuda::kTwoLevelShortTileRows);
}

TEST_F(CudaBlur, TwoLevelsAtOnceOnlyForTheirRadiusPairs) {
  const cuda::GaussianTaps small = cuda::make_gaussian_taps(0.4f);  // radius 2
  const cuda::GaussianTaps wide = cuda::make_gaussian_taps(1.3f);   // radius 5
  const cuda::GaussianTaps past = cuda::make_gaussian_taps(2.45f);  // radius 10
  EXPECT_FALSE(cuda::blurs_two_levels_at_once(small, wide));
  EXPECT_FALSE(cuda::blurs_two_levels_at_once(past, past));
  DevicePlane plane(16, 16), level(16, 16), dog(16, 16);
  const cuda::TwoLevelTargets targets{level.image, dog.image, cuda::kNoImage};
  try {
    cuda::blur_two_levels(plane.image, past, past, targets, stream_.get());
    ADD_FAILURE() << "no error for radii 10 and 10";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("radii 10 and 10"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpusift::testing
