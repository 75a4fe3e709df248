// Launchers for the scale-space construction on the GPU.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "gpusift/cuda_sift.h"
#include "gpusift/sift_scale_space.h"

namespace gpusift::cuda {

struct DeviceImage {
  float* data;
  int width;
  int height;
  int stride;  // in floats
};

// Half of a symmetric kernel, passed by value so that instances never share constant memory.
struct GaussianTaps {
  int radius;
  float taps[kMaxGaussianRadius + 1];  // taps[0] is the centre
};
GaussianTaps make_gaussian_taps(float sigma);

// Frame (gray or RGB-family, device memory) to float gray in 0..255.
void convert_to_float(const void* frame, size_t pitch_bytes, PixelFormat format,
                      const DeviceImage& dst, cudaStream_t stream);
void upscale_2x(const DeviceImage& src, const DeviceImage& dst, cudaStream_t stream);
void decimate_2x(const DeviceImage& src, const DeviceImage& dst, cudaStream_t stream);
// dst = blur(src) through `scratch` (same size); when `dog` is non-null also dog = dst - src.
void gaussian_blur(const DeviceImage& src, const DeviceImage& scratch, const DeviceImage& dst,
                   const GaussianTaps& taps, const DeviceImage* dog, cudaStream_t stream);
// The same by the kernels for any radius, which gaussian_blur takes only past the radii it has
// register-window kernels for; for tests that the two agree bit for bit.
void gaussian_blur_any_radius(const DeviceImage& src, const DeviceImage& scratch,
                              const DeviceImage& dst, const GaussianTaps& taps,
                              const DeviceImage* dog, cudaStream_t stream);

}  // namespace gpusift::cuda
