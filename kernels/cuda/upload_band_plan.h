// SPDX-License-Identifier: LGPL-2.1-or-later
// How a large GRAY8 host frame is split into bands of rows for its upload, so that octave 0's
// levels of a band start while the bands after it are still on their way.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>

namespace gpusift::cuda {

// A band for every whole 512 KiB of a frame, up to four: 1080p takes three, 2560x1920 and 4K
// four, 720p none. Each band costs a copy and its event, and octave 0's kernels on a band's rows
// run short of blocks: with eight, the upload's added time at 2560x1920 and 4K was 10-40 us
// longer (jobs 53 and 55).
constexpr int kMaxUploadBands = 4;
constexpr size_t kUploadBandBytes = 512 * 1024;

struct UploadBandPlan {
  int count = 0;  // 0: one copy, then one blur
  // Band b's blur makes rows blur_ends[b - 1] .. blur_ends[b] - 1 and reads the frame up to a
  // tile past them, which the uploads up to upload_ends[b] cover.
  std::array<int, kMaxUploadBands> upload_ends{}, blur_ends{};
};

// Bands start on multiples of `tile_rows`, the blur's tile height.
inline UploadBandPlan plan_upload_bands(int width, int height, int tile_rows) {
  UploadBandPlan plan;
  const size_t bytes = static_cast<size_t>(width) * static_cast<size_t>(height);
  const int bands = static_cast<int>(std::min<size_t>(kMaxUploadBands, bytes / kUploadBandBytes));
  if (bands < 2)
    return plan;
  const int rows = ((height + bands - 1) / bands + tile_rows - 1) / tile_rows * tile_rows;
  for (int end = rows; plan.count == 0 || plan.blur_ends[plan.count - 1] < height; end += rows) {
    plan.blur_ends[plan.count] = std::min(end, height);
    plan.upload_ends[plan.count] = std::min(end + tile_rows, height);
    ++plan.count;
  }
  if (plan.count < 2)
    return UploadBandPlan{};
  return plan;
}

// Octave 0's levels after its first two, made band by band behind the upload too: the level
// after the first two reads `halo` rows of the one before it past its own rows, in tiles of
// `tile_rows`.
struct BandedLevel {
  int halo;
  int tile_rows;
};
constexpr int kMaxBandedLevels = 4;

struct LevelBandPlan {
  int levels = 0;
  // Later level k's band b makes rows ends[k][b - 1] .. ends[k][b] - 1, none where they are
  // equal: each band ends a halo and a tile's rounding short of the level before it, the last at
  // the frame's height.
  std::array<std::array<int, kMaxUploadBands>, kMaxBandedLevels> ends{};
};

inline LevelBandPlan plan_level_bands(const UploadBandPlan& upload, int height,
                                      const BandedLevel* levels, int count) {
  LevelBandPlan plan;
  if (upload.count == 0)
    return plan;
  plan.levels = std::min(count, kMaxBandedLevels);
  const std::array<int, kMaxUploadBands>* before = &upload.blur_ends;
  for (int k = 0; k < plan.levels; ++k) {
    const BandedLevel& level = levels[k];
    int start = 0;
    for (int b = 0; b < upload.count; ++b) {
      const bool last = b + 1 == upload.count;
      const int reachable = std::max((*before)[b] - level.halo, 0);
      start = std::max(start, last ? height : reachable / level.tile_rows * level.tile_rows);
      plan.ends[k][b] = start;
    }
    before = &plan.ends[k];
  }
  return plan;
}

}  // namespace gpusift::cuda
