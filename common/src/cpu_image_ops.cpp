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
    for (int x = 0; x < dst.width; ++x) out[x] = in[x];
  }
}

void upscale_2x(const FloatImage& src, const FloatImage& dst) {
  const int w = src.width, h = src.height;
#pragma omp parallel
  {
    std::vector<float> upper(dst.width), lower(dst.width);
    auto widen = [&](const float* in, float* out) {
      for (int x = 0; x < w; ++x) {
        const float left = in[x > 0 ? x - 1 : 0], right = in[x + 1 < w ? x + 1 : w - 1];
        out[2 * x] = x > 0 ? left * 0.25f + in[x] * 0.75f : in[x];
        out[2 * x + 1] = x + 1 < w ? in[x] * 0.75f + right * 0.25f : in[x];
      }
    };
#pragma omp for schedule(static)
    for (int y = 0; y < dst.height; ++y) {
      // Output row y samples source row y/2 - 0.25: rows (y-1)/2 and (y+1)/2, clamped.
      const int near = y / 2;
      const int far = (y % 2 == 0) ? near - 1 : near + 1;
      float* out = dst.row(y);
      if (far < 0 || far >= h) {
        widen(src.row(near), out);
        continue;
      }
      widen(src.row(y % 2 == 0 ? far : near), upper.data());
      widen(src.row(y % 2 == 0 ? near : far), lower.data());
      const float top_weight = y % 2 == 0 ? 0.25f : 0.75f;
      for (int x = 0; x < dst.width; ++x)
        out[x] = upper[x] * top_weight + lower[x] * (1.f - top_weight);
    }
  }
}

void decimate_2x(const FloatImage& src, const FloatImage& dst) {
#pragma omp parallel for schedule(static)
  for (int y = 0; y < dst.height; ++y) {
    const float* in = src.row(2 * y);
    float* out = dst.row(y);
    for (int x = 0; x < dst.width; ++x) out[x] = in[2 * x];
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
      for (int x = 0; x < w; ++x) acc[x] = taps[0] * centre[x];
      for (int k = 1; k <= r; ++k) {
        const float* __restrict above = src.row(reflect101(y - k, h));
        const float* __restrict below = src.row(reflect101(y + k, h));
        const float t = taps[k];
        for (int x = 0; x < w; ++x) acc[x] += t * (above[x] + below[x]);
      }
      float* __restrict pad = padded.data();
      for (int p = 0; p < r; ++p) {
        pad[p] = acc[reflect101(p - r, w)];
        pad[w + r + p] = acc[reflect101(w + p, w)];
      }
      for (int x = 0; x < w; ++x) pad[r + x] = acc[x];
      float* __restrict out = dst.row(y);
      const float* __restrict mid = pad + r;
      for (int x = 0; x < w; ++x) out[x] = taps[0] * mid[x];
      for (int k = 1; k <= r; ++k) {
        const float t = taps[k];
        for (int x = 0; x < w; ++x) out[x] += t * (mid[x - k] + mid[x + k]);
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
    for (int x = 0; x < dst.width; ++x) out[x] = pa[x] - pb[x];
  }
}

}  // namespace gpusift::cpu
