// The scale space's Gaussian blur: the register-window kernels, taken for the usual radii, give
// the same bits as the kernels for any radius, on odd sizes and with the difference of Gaussians.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>
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

TEST_F(CudaBlur, WindowKernelsEqualTheKernelsForAnyRadius) {
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
  // Every radius with a window kernel, and some past them.
  EXPECT_TRUE(radii.count(1) && radii.count(16) && radii.count(18));
}

}  // namespace
}  // namespace gpusift::testing
