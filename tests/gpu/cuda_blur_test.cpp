// The scale space's Gaussian blur: the one-pass kernels, taken for the usual radii, give the same
// bits as the two-pass kernels for any radius, on odd sizes, across tiles, with the difference of
// Gaussians and with the decimation that starts an octave.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "gpu_fixture.h"
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
  std::uniform_real_distribution<float> pixel(0.f, 255.f);
  std::set<int> radii, tile_heights;
  for (const auto& [w, h] : sizes_for_every_tile_height()) {
    tile_heights.insert(cuda::one_pass_tile_height(w, h));
    DevicePlane source(w, h), scratch(w, h), one_pass_out(w, h), one_pass_dog(w, h), any_out(w, h),
        any_dog(w, h);
    std::vector<float> host(static_cast<size_t>(source.image.stride) * h);
    for (float& value : host)
      value = pixel(random);
    source.upload(host);
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

TEST_F(CudaBlur, DecimateAndBlurEqualsDecimatingThenBlurring) {
  std::mt19937 random(11);
  std::uniform_real_distribution<float> pixel(0.f, 255.f);
  const int parent_widths[] = {2, 3, 15, 263, 700, 3841},
            parent_heights[] = {2, 9, 4, 130, 141, 2161};
  for (int size_index = 0; size_index < 6; ++size_index) {
    const int pw = parent_widths[size_index], ph = parent_heights[size_index];
    const int w = pw / 2, h = ph / 2;
    DevicePlane parent(pw, ph), scratch(w, h), level0(w, h), out(w, h), dog(w, h),
        expected_level0(w, h), expected_out(w, h), expected_dog(w, h);
    std::vector<float> host(static_cast<size_t>(parent.image.stride) * ph);
    for (float& value : host)
      value = pixel(random);
    parent.upload(host);
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

}  // namespace
}  // namespace gpusift::testing
