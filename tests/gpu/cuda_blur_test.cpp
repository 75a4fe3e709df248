// The scale space's Gaussian blur: the one-pass kernels, taken for the usual radii, give the same
// bits as the two-pass kernels for any radius, on odd sizes, across tiles, with the difference of
// Gaussians and with the decimation that starts an octave.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "gpu_fixture.h"
#include "gpusift/sift_scale_space.h"
#include "pyramid_kernels.h"

namespace gpusift::testing {
namespace {

class CudaBlur : public CudaTest {};

struct DevicePlane {
  explicit DevicePlane(int width, int height)
      : image{nullptr, width, height, (width + 31) / 32 * 32} {
    EXPECT_EQ(cudaMalloc(&image.data, bytes()), cudaSuccess);
    cudaMemset(image.data, 0, bytes());
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

TEST_F(CudaBlur, OnePassKernelsEqualTheKernelsForAnyRadius) {
  std::mt19937 random(7);
  std::uniform_real_distribution<float> pixel(0.f, 255.f);
  std::set<int> radii;
  for (int size_index = 0; size_index < 4; ++size_index) {
    const int widths[] = {1, 7, 131, 333}, heights[] = {1, 5, 97, 70};
    const int w = widths[size_index], h = heights[size_index];
    DevicePlane source(w, h), scratch(w, h), window_out(w, h), window_dog(w, h), any_out(w, h),
        any_dog(w, h);
    std::vector<float> host(static_cast<size_t>(source.image.stride) * h);
    for (float& value : host)
      value = pixel(random);
    ASSERT_EQ(cudaMemcpy(source.image.data, host.data(), source.bytes(), cudaMemcpyHostToDevice),
              cudaSuccess);
    for (float sigma = 0.2f; sigma < 4.6f; sigma += 0.1f) {
      const cuda::GaussianTaps taps = cuda::make_gaussian_taps(sigma);
      radii.insert(taps.radius);
      cuda::gaussian_blur(source.image, scratch.image, window_out.image, taps, &window_dog.image,
                          stream_.get());
      cuda::gaussian_blur_any_radius(source.image, scratch.image, any_out.image, taps,
                                     &any_dog.image, stream_.get());
      ASSERT_EQ(cudaStreamSynchronize(stream_.get()), cudaSuccess);
      EXPECT_TRUE(same_bits(window_out.download(), any_out.download()))
          << w << "x" << h << " sigma " << sigma << " radius " << taps.radius;
      EXPECT_TRUE(same_bits(window_dog.download(), any_dog.download()))
          << w << "x" << h << " sigma " << sigma << " radius " << taps.radius;
    }
  }
  // Every radius with a one-pass kernel, and some past them.
  EXPECT_TRUE(radii.count(1) && radii.count(16) && radii.count(18));
}

TEST_F(CudaBlur, DecimateAndBlurEqualsDecimatingThenBlurring) {
  std::mt19937 random(11);
  std::uniform_real_distribution<float> pixel(0.f, 255.f);
  const int parent_widths[] = {2, 3, 15, 263, 700}, parent_heights[] = {2, 9, 4, 130, 141};
  for (int size_index = 0; size_index < 5; ++size_index) {
    const int pw = parent_widths[size_index], ph = parent_heights[size_index];
    const int w = pw / 2, h = ph / 2;
    DevicePlane parent(pw, ph), scratch(w, h), level0(w, h), out(w, h), dog(w, h),
        expected_level0(w, h), expected_out(w, h), expected_dog(w, h);
    std::vector<float> host(static_cast<size_t>(parent.image.stride) * ph);
    for (float& value : host)
      value = pixel(random);
    ASSERT_EQ(cudaMemcpy(parent.image.data, host.data(), parent.bytes(), cudaMemcpyHostToDevice),
              cudaSuccess);
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

// A pyramid's octaves, each octave's levels and DoGs in one allocation as the extractor lays them.
struct DevicePyramid {
  DevicePyramid(int top_width, int top_height, int octaves, int levels)
      : planes_per_octave(2 * levels - 1) {
    for (int o = 0, w = top_width, h = top_height; o < octaves; ++o, w /= 2, h /= 2) {
      const int stride = (w + 31) / 32 * 32;
      const size_t plane = static_cast<size_t>(stride) * h;
      float* data = nullptr;
      EXPECT_EQ(cudaMalloc(&data, sizeof(float) * plane * planes_per_octave), cudaSuccess);
      cudaMemset(data, 0, sizeof(float) * plane * planes_per_octave);
      planes.push_back(cuda::OctavePlanes{data, data + plane * levels, w, h, stride, plane});
    }
  }
  ~DevicePyramid() {
    for (const cuda::OctavePlanes& o : planes)
      cudaFree(o.gaussian);
  }
  cuda::DeviceImage gaussian(int o, int l) const {
    const cuda::OctavePlanes& p = planes[o];
    return cuda::DeviceImage{p.gaussian + l * p.plane, p.width, p.height, p.stride};
  }
  cuda::DeviceImage dog(int o, int l) const {
    const cuda::OctavePlanes& p = planes[o];
    return cuda::DeviceImage{p.dog + l * p.plane, p.width, p.height, p.stride};
  }
  std::vector<float> download(int o) const {
    const cuda::OctavePlanes& p = planes[o];
    std::vector<float> host(p.plane * planes_per_octave);
    cudaMemcpy(host.data(), p.gaussian, sizeof(float) * host.size(), cudaMemcpyDeviceToHost);
    return host;
  }
  int planes_per_octave;
  std::vector<cuda::OctavePlanes> planes;
};

TEST_F(CudaBlur, SmallOctavesInOneBlockEqualAKernelPerLevel) {
  std::mt19937 random(13);
  std::uniform_real_distribution<float> pixel(0.f, 255.f);
  struct Case {
    int width, height, layers;
    float sigma;
  };
  // Sizes down to one pixel, odd ones, radii up to 16 (sigma 2.07).
  for (const Case c : {Case{203, 97, 3, 1.6f}, Case{131, 67, 3, 2.07f}, Case{9, 6, 3, 1.6f},
                       Case{80, 200, 4, 1.6f}}) {
    const int levels = gaussian_levels(c.layers);
    std::vector<cuda::GaussianTaps> taps;
    taps.push_back(cuda::make_gaussian_taps(initial_blur_sigma(c.sigma, false)));
    for (int l = 1; l < levels; ++l)
      taps.push_back(cuda::make_gaussian_taps(level_blur_sigma(c.sigma, c.layers, l)));
    int octaves = 1;
    while (std::min(c.width >> octaves, c.height >> octaves) >= 1)
      ++octaves;
    ASSERT_TRUE(cuda::small_octaves_fit(c.width / 2, c.height / 2, taps.data(), levels));
    DevicePyramid expected(c.width, c.height, octaves, levels),
        built(c.width, c.height, octaves, levels);
    DevicePlane scratch(c.width, c.height);
    std::vector<float> host(static_cast<size_t>(expected.planes[0].plane));
    for (float& value : host)
      value = pixel(random);
    for (const DevicePyramid* pyramid : {&expected, &built})
      ASSERT_EQ(cudaMemcpy(pyramid->planes[0].gaussian + c.layers * pyramid->planes[0].plane,
                           host.data(), sizeof(float) * host.size(), cudaMemcpyHostToDevice),
                cudaSuccess);
    for (int o = 1; o < octaves; ++o) {
      const cuda::DeviceImage& level0 = expected.gaussian(o, 0);
      const cuda::DeviceImage work{scratch.image.data, level0.width, level0.height, level0.stride};
      cuda::decimate_and_blur(expected.gaussian(o - 1, c.layers), level0, work,
                              expected.gaussian(o, 1), taps[1], expected.dog(o, 0), stream_.get());
      for (int l = 2; l < levels; ++l) {
        const cuda::DeviceImage dog = expected.dog(o, l - 1);
        cuda::gaussian_blur(expected.gaussian(o, l - 1), work, expected.gaussian(o, l), taps[l],
                            &dog, stream_.get());
      }
    }
    cuda::build_small_octaves(built.planes.data(), 1, octaves, levels, c.layers, taps.data(),
                              stream_.get());
    ASSERT_EQ(cudaStreamSynchronize(stream_.get()), cudaSuccess);
    std::set<int> radii;
    for (int l = 1; l < levels; ++l)
      radii.insert(taps[l].radius);
    for (int o = 1; o < octaves; ++o)
      EXPECT_TRUE(same_bits(built.download(o), expected.download(o)))
          << c.width << "x" << c.height << " octave " << o << " of " << octaves;
    if (c.sigma > 2) {
      EXPECT_EQ(*radii.rbegin(), cuda::kOnePassRadiusMax);
    }
  }
}

}  // namespace
}  // namespace gpusift::testing
