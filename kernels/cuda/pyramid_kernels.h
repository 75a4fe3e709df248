// Launchers for the scale-space construction on the GPU.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "gpusift/cuda_sift.h"
#include "gpusift/sift_params.h"
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
// The largest radius that the one-pass kernels (and build_small_octaves) take.
constexpr int kOnePassRadiusMax = 16;
constexpr int kMaxScaleLevels = kMaxOctaveLayers + 3;

// Frame (gray or RGB-family, device memory) to float gray in 0..255.
void convert_to_float(const void* frame, size_t pitch_bytes, PixelFormat format,
                      const DeviceImage& dst, cudaStream_t stream);
void upscale_2x(const DeviceImage& src, const DeviceImage& dst, cudaStream_t stream);
void decimate_2x(const DeviceImage& src, const DeviceImage& dst, cudaStream_t stream);
// dst = blur(src); when `dog` is non-null also dog = dst - src. `scratch` (the size of src) is
// touched only where blur_needs_scratch(taps), past the radii that one kernel per level covers.
void gaussian_blur(const DeviceImage& src, const DeviceImage& scratch, const DeviceImage& dst,
                   const GaussianTaps& taps, const DeviceImage* dog, cudaStream_t stream);
bool blur_needs_scratch(const GaussianTaps& taps);
// An octave's first blur: level0 = decimate_2x(parent), then dst = blur(level0) and
// dog = dst - level0, in one pass where blur_needs_scratch(taps) is false.
void decimate_and_blur(const DeviceImage& parent, const DeviceImage& level0,
                       const DeviceImage& scratch, const DeviceImage& dst, const GaussianTaps& taps,
                       const DeviceImage& dog, cudaStream_t stream);
// gaussian_blur by the two-pass kernels for any radius, which gaussian_blur takes only past the
// radii it has one-pass kernels for; for tests that the two agree bit for bit.
void gaussian_blur_any_radius(const DeviceImage& src, const DeviceImage& scratch,
                              const DeviceImage& dst, const GaussianTaps& taps,
                              const DeviceImage* dog, cudaStream_t stream);

// Where one octave's levels and DoGs live: level l at gaussian + l * plane, DoG d at dog + d *
// plane.
struct OctavePlanes {
  float* gaussian;
  float* dog;
  int width;
  int height;
  int stride;  // in floats
  size_t plane;
};

// Whether build_small_octaves takes octaves from this size down, with these `levels` taps
// (taps[0], the first octave's initial blur, is not used).
bool small_octaves_fit(int width, int height, const GaussianTaps* taps, int levels);
// Octaves first .. count - 1 in one launch of one block, each built in shared memory: level 0
// decimated from level n_octave_layers of the octave before, then every level and DoG as
// decimate_and_blur and gaussian_blur would make them, bit for bit. The small octaves' many
// kernels are mostly their latency; here a level costs two block barriers instead of a kernel.
void build_small_octaves(const OctavePlanes* octaves, int first, int count, int levels,
                         int n_octave_layers, const GaussianTaps* taps, cudaStream_t stream);

}  // namespace gpusift::cuda
