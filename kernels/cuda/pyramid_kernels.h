// SPDX-License-Identifier: LGPL-2.1-or-later
// Launchers for the scale-space construction on the GPU.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <limits>

#include "gpusift/cuda_sift.h"
#include "gpusift/sift_scale_space.h"

namespace gpusift::cuda {

struct DeviceImage {
  float* data;
  int width;
  int height;
  int stride;  // in floats
};
// An image not to write.
inline constexpr DeviceImage kNoImage{nullptr, 0, 0, 0};

// Half of a symmetric kernel, passed by value so that instances never share constant memory.
struct GaussianTaps {
  int radius;
  float taps[kMaxGaussianRadius + 1];  // taps[0] is the centre
};
GaussianTaps make_gaussian_taps(float sigma);
// The largest radius that the one-pass kernels take.
constexpr int kOnePassRadiusMax = 16;
// The rows of a one-pass kernel's tile for a level of this size on the current device: 32, 16
// or 8, the tallest that still gives every multiprocessor two blocks.
int one_pass_tile_height(int width, int height);

// Frame (gray or RGB-family, device memory) to float gray in 0..255, limited range brought to
// full range first.
void convert_to_float(const void* frame, size_t pitch_bytes, PixelFormat format, LumaRange range,
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
// Two levels in a row in one pass: a = blur(src, first) and b = blur(a, second), bit for bit
// what gaussian_blur gives twice, with a kept in shared memory. Writes b to `level` and a - src
// to `first_dog` where their data are set, and b - a to `dog` (all of src's size). Only for the
// radius pairs blurs_two_levels_at_once() accepts: others throw kInvalidArgument.
struct TwoLevelTargets {
  DeviceImage level;
  DeviceImage dog;
  DeviceImage first_dog;
};
// The two-level kernel's tile heights, both more than its two blurs' halo, so that the rows of a
// band need their source only up to one tile past their end.
constexpr int kTwoLevelShortTileRows = 16;
constexpr int kTwoLevelTallTileRows = 32;
// Output rows first .. end-1 (end past the image: to its last row); first a multiple of the
// tile height.
struct RowRange {
  int first = 0;
  int end = std::numeric_limits<int>::max();
};
bool blurs_two_levels_at_once(const GaussianTaps& first, const GaussianTaps& second);
// The tile height that the two functions below take for a level of this size on the current
// device when given none (0).
int two_level_tile_rows(const GaussianTaps& first, const GaussianTaps& second, int width,
                        int height);
// tile_rows: 0, kTwoLevelShortTileRows, or kTwoLevelTallTileRows where the device has the shared
// memory; others throw kInvalidArgument. The results do not depend on it.
void blur_two_levels(const DeviceImage& src, const GaussianTaps& first, const GaussianTaps& second,
                     const TwoLevelTargets& out, cudaStream_t stream, int tile_rows = 0);
// The same from a GRAY8 frame in device memory, whose bytes (at full range, from `range`) are the
// float image's values; only the output rows in `rows`, which read the frame up to a tile's rows
// past their end.
void blur_two_levels_from_gray8(const uint8_t* frame, size_t pitch_bytes, LumaRange range,
                                const GaussianTaps& first, const GaussianTaps& second,
                                const TwoLevelTargets& out, cudaStream_t stream,
                                RowRange rows = RowRange{}, int tile_rows = 0);
// gaussian_blur's one-pass kernel on output rows `rows` only, which read `src` up to the radius
// past them; rows.first a multiple of one_pass_tile_height(dst.width, dst.height). Throws
// kInvalidArgument where blur_needs_scratch(taps) or rows.first is not on a tile.
void gaussian_blur_rows(const DeviceImage& src, const DeviceImage& dst, const GaussianTaps& taps,
                        const DeviceImage* dog, RowRange rows, cudaStream_t stream);
// gaussian_blur by the two-pass kernels for any radius, which gaussian_blur takes only past the
// radii it has one-pass kernels for; for tests that the two agree bit for bit.
void gaussian_blur_any_radius(const DeviceImage& src, const DeviceImage& scratch,
                              const DeviceImage& dst, const GaussianTaps& taps,
                              const DeviceImage* dog, cudaStream_t stream);

}  // namespace gpusift::cuda
