#include "cpu_image_ops.h"

#include <vector>

#include "gpusift/sift_scale_space.h"

namespace gpusift::cpu {

GaussianKernel make_gaussian_kernel(float sigma) {
  GaussianKernel kernel;
  kernel.radius = gaussian_radius(sigma);
  std::vector<float> full(2 * kernel.radius + 1);
  gaussian_taps(sigma, kernel.radius, full.data());
  kernel.taps.assign(full.begin() + kernel.radius, full.end());
  return kernel;
}

void gray8_to_float(const uint8_t* gray, size_t pitch_bytes, const FloatImage& dst) {
#pragma omp parallel for schedule(static)
  for (int y = 0; y < dst.height; ++y) {
    const uint8_t* in = gray + static_cast<size_t>(y) * pitch_bytes;
    float* out = dst.row(y);
    for (int x = 0; x < dst.width; ++x)
      out[x] = in[x];
  }
}

void upscale_2x(const FloatImage& src, const FloatImage& dst) {
  const FloatImageView view{src.data, src.width, src.height, src.stride};
#pragma omp parallel for schedule(static)
  for (int y = 0; y < dst.height; ++y) {
    float* out = dst.row(y);
    for (int x = 0; x < dst.width; ++x)
      out[x] = upscaled_pixel(view, y, x);
  }
}

void decimate_2x(const FloatImage& src, const FloatImage& dst) {
#pragma omp parallel for schedule(static)
  for (int y = 0; y < dst.height; ++y) {
    const float* in = src.row(2 * y);
    float* out = dst.row(y);
    for (int x = 0; x < dst.width; ++x)
      out[x] = in[2 * x];
  }
}

void gaussian_blur(const FloatImage& src, const FloatImage& dst, const GaussianKernel& kernel) {
  const int w = src.width, h = src.height, r = kernel.radius;
  const float* taps = kernel.taps.data();
#pragma omp parallel
  {
    std::vector<float> column(w);
    std::vector<float> padded(w + 2 * r);
#pragma omp for schedule(static)
    for (int y = 0; y < h; ++y) {
      float* __restrict acc = column.data();
      const float* centre = src.row(y);
      for (int x = 0; x < w; ++x)
        acc[x] = taps[0] * centre[x];
      for (int k = 1; k <= r; ++k) {
        const float* __restrict above = src.row(reflect101(y - k, h));
        const float* __restrict below = src.row(reflect101(y + k, h));
        const float t = taps[k];
        for (int x = 0; x < w; ++x)
          acc[x] += t * (above[x] + below[x]);
      }
      float* __restrict pad = padded.data();
      for (int p = 0; p < r; ++p) {
        pad[p] = acc[reflect101(p - r, w)];
        pad[w + r + p] = acc[reflect101(w + p, w)];
      }
      for (int x = 0; x < w; ++x)
        pad[r + x] = acc[x];
      float* __restrict out = dst.row(y);
      const float* __restrict mid = pad + r;
      for (int x = 0; x < w; ++x)
        out[x] = taps[0] * mid[x];
      for (int k = 1; k <= r; ++k) {
        const float t = taps[k];
        for (int x = 0; x < w; ++x)
          out[x] += t * (mid[x - k] + mid[x + k]);
      }
    }
  }
}

void subtract(const FloatImage& a, const FloatImage& b, const FloatImage& dst) {
#pragma omp parallel for schedule(static)
  for (int y = 0; y < dst.height; ++y) {
    const float* __restrict pa = a.row(y);
    const float* __restrict pb = b.row(y);
    float* __restrict out = dst.row(y);
    for (int x = 0; x < dst.width; ++x)
      out[x] = pa[x] - pb[x];
  }
}

}  // namespace gpusift::cpu
