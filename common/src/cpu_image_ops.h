// Whole-image operations of the CPU backend (OpenMP over rows).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpusift::cpu {

struct FloatImage {
  float* data;
  int width;
  int height;
  int stride;  // in floats
  float* row(int y) const { return data + static_cast<ptrdiff_t>(y) * stride; }
};

// Symmetric Gaussian taps: taps[0] is the centre, taps[k] the weight at +-k.
struct GaussianKernel {
  int radius = 0;
  std::vector<float> taps;
};
GaussianKernel make_gaussian_kernel(float sigma);

void gray8_to_float(const uint8_t* gray, size_t pitch_bytes, const FloatImage& dst);
// Bilinear 2x enlargement with half-pixel centres and replicated edges (cv::resize, linear).
void upscale_2x(const FloatImage& src, const FloatImage& dst);
// Every second pixel of src (cv::resize, nearest, to half size).
void decimate_2x(const FloatImage& src, const FloatImage& dst);
// Separable blur with mirrored (reflect-101) borders; src and dst must not overlap.
void gaussian_blur(const FloatImage& src, const FloatImage& dst, const GaussianKernel& kernel);
// dst = a - b
void subtract(const FloatImage& a, const FloatImage& b, const FloatImage& dst);

}  // namespace gpusift::cpu
