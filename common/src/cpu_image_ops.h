// SPDX-License-Identifier: LGPL-2.1-or-later
// Whole-image operations of the CPU backend.
//
// With Sharing::kShared an image function splits its rows between the threads of the enclosing
// OpenMP parallel region (every thread of the team must call it; it ends on a barrier); with
// Sharing::kSerial, or outside a parallel region, the calling thread does all rows. Either way
// each output value is computed by the same sequence of float operations, so results do not
// depend on the thread count.
//
// The inner loops are written once over a generic vector type and compiled for the SSE2
// baseline, for AVX2 and (the blur) for AVX-512, picked at run time. No variant uses FMA and the
// operations per value are the same, so all give the same bits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpusift::cpu {

enum class Sharing { kShared, kSerial };

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

// Asks for the cache lines of p[0 .. count) to be loaded (a hint; no effect on results).
inline void prefetch_span(const float* p, int count) {
  for (int i = 0; i < count; i += 16) {
#if defined(__x86_64__) || defined(__i386__)
    // GCC deletes loops of nothing but __builtin_prefetch; an asm statement stays.
    asm volatile("prefetcht0 %0" : : "m"(p[i]));
#else
    __builtin_prefetch(p + i);
#endif
  }
  if (count > 0) {
#if defined(__x86_64__) || defined(__i386__)
    asm volatile("prefetcht0 %0" : : "m"(p[count - 1]));
#else
    __builtin_prefetch(p + count - 1);
#endif
  }
}

// Floats of per-thread scratch that gaussian_blur needs for images up to `width` wide.
size_t blur_scratch_floats(int width, int radius);

void gray8_to_float(const uint8_t* gray, size_t pitch_bytes, const FloatImage& dst,
                    Sharing sharing);
// Bilinear 2x enlargement with half-pixel centres and replicated edges (cv::resize, linear).
void upscale_2x(const FloatImage& src, const FloatImage& dst, Sharing sharing);
// Every second pixel of src (cv::resize, nearest, to half size).
void decimate_2x(const FloatImage& src, const FloatImage& dst, Sharing sharing);
// Separable blur with mirrored (reflect-101) borders into *dst; src and dst must not overlap.
// dst may be null when only the difference is wanted. When dog is given it also receives
// dst - src (the difference of Gaussians), written past the caches: it is read again only after
// the whole octave is built. `scratch` is this thread's buffer of at least
// blur_scratch_floats(src.width, kernel.radius) floats.
void gaussian_blur(const FloatImage& src, const FloatImage* dst, const GaussianKernel& kernel,
                   const FloatImage* dog, float* scratch, Sharing sharing);

// Columns c in [c0, c1) of DoG row `row` of layer `layer` that may be scale-space extrema: a
// necessary condition of gpusift::is_scale_space_extremum (|v| > threshold and v >= all 26
// neighbours when v > 0, v <= all of them otherwise), evaluated for many columns at once.
// `layers` points at layer 0 of an octave's stack; the rows row-1..row+1 of layers
// layer-1..layer+1 and columns c0-1..c1 must exist. Writes the columns in increasing order to
// `columns` (room for c1 - c0) and returns how many.
int extremum_candidates(const float* layers, size_t layer_stride, int stride, int layer, int row,
                        int c0, int c1, float threshold, int* columns);

}  // namespace gpusift::cpu
