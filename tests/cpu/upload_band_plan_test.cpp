// SPDX-License-Identifier: LGPL-2.1-or-later
// How the CUDA extractor splits a large host frame's upload and octave 0's levels into bands of
// rows: pure arithmetic, so that it runs without a GPU. cuda_host_frames checks that banded
// frames give the results of frames read from device memory.
#include "upload_band_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>

namespace gpusift::testing {
namespace {

constexpr int kTile = 16;
const int kSizes[][2] = {{1024, 1024}, {1921, 1083}, {2560, 1920}, {3840, 2160},
                         {7680, 4320}, {4096, 300},  {1000, 2100}, {65536, 33}};

// Every band's blur starts on a tile, and its upload covers the tile of rows past the blur that
// the blur reads.
TEST(UploadBandPlan, SplitsFramesOfAMebibyteAndMoreIntoBandsThatCoverTheirBlur) {
  EXPECT_EQ(cuda::plan_upload_bands(1280, 720, kTile).count, 0);
  EXPECT_EQ(cuda::plan_upload_bands(1024, 512, kTile).count, 0);
  EXPECT_EQ(cuda::plan_upload_bands(1921, 1083, kTile).count, 3);
  EXPECT_EQ(cuda::plan_upload_bands(2560, 1920, kTile).count, cuda::kMaxUploadBands);
  EXPECT_EQ(cuda::plan_upload_bands(1 << 20, 8, kTile).count, 0) << "a single tile of rows";
  for (const int tile : {16, 32}) {  // the two-level kernel's short and tall tiles
    for (const auto& size : kSizes) {
      const int width = size[0], height = size[1];
      const cuda::UploadBandPlan plan = cuda::plan_upload_bands(width, height, tile);
      SCOPED_TRACE(std::to_string(width) + "x" + std::to_string(height) + ", tiles of " +
                   std::to_string(tile) + " rows");
      ASSERT_GE(plan.count, 2);
      ASSERT_LE(plan.count, cuda::kMaxUploadBands);
      int blur_start = 0;
      for (int b = 0; b < plan.count; ++b) {
        EXPECT_EQ(blur_start % tile, 0) << "band " << b;
        EXPECT_GT(plan.blur_ends[b], blur_start) << "band " << b;
        EXPECT_GE(plan.upload_ends[b], std::min(plan.blur_ends[b] + tile, height)) << "band " << b;
        blur_start = plan.blur_ends[b];
      }
      EXPECT_EQ(plan.blur_ends[plan.count - 1], height);
      EXPECT_EQ(plan.upload_ends[plan.count - 1], height);
    }
  }
}

// A later level's band starts on its kernel's tile and reads only rows of the level before it
// that the same or an earlier band made; the last band of every level ends at the frame's
// height.
TEST(LevelBandPlan, EachLevelsBandsReadOnlyRowsTheBandsBeforeThemMade) {
  const cuda::BandedLevel video[] = {{3, 32}, {4, 32}};
  const cuda::BandedLevel parity_like[] = {{7, 16}, {9, 16}, {11, 16}, {16, 8}};
  const cuda::BandedLevel too_many[] = {{3, 8}, {3, 8}, {3, 8}, {3, 8}, {3, 8}};
  for (const auto& size : kSizes) {
    const int width = size[0], height = size[1];
    const cuda::UploadBandPlan upload = cuda::plan_upload_bands(width, height, kTile);
    for (const auto& [levels, count] :
         {std::pair{video, 2}, std::pair{parity_like, 4}, std::pair{too_many, 5}}) {
      SCOPED_TRACE(std::to_string(width) + "x" + std::to_string(height) + ", " +
                   std::to_string(count) + " levels");
      const cuda::LevelBandPlan plan = cuda::plan_level_bands(upload, height, levels, count);
      ASSERT_EQ(plan.levels, std::min(count, cuda::kMaxBandedLevels));
      for (int k = 0; k < plan.levels; ++k) {
        const auto& before = k == 0 ? upload.blur_ends : plan.ends[k - 1];
        int start = 0;
        for (int b = 0; b < upload.count; ++b) {
          const int end = plan.ends[k][b];
          EXPECT_GE(end, start) << "level " << k << " band " << b;
          EXPECT_EQ(start % levels[k].tile_rows, 0) << "level " << k << " band " << b;
          if (b + 1 < upload.count && end > start) {
            EXPECT_LE(end + levels[k].halo, before[b]) << "level " << k << " band " << b;
          }
          start = end;
        }
        EXPECT_EQ(start, height) << "level " << k;
      }
    }
  }
}

// The bands keep pace with the upload: at 2560x1920 every band of both video-mode levels makes
// rows, so that only the last band's share is left when the frame has arrived.
TEST(LevelBandPlan, LargeFramesGiveEveryBandRowsOfEveryLevel) {
  const cuda::BandedLevel video[] = {{3, 32}, {4, 32}};
  const cuda::UploadBandPlan upload = cuda::plan_upload_bands(2560, 1920, kTile);
  const cuda::LevelBandPlan plan = cuda::plan_level_bands(upload, 1920, video, 2);
  for (int k = 0; k < plan.levels; ++k) {
    int start = 0;
    for (int b = 0; b < upload.count; ++b) {
      EXPECT_GT(plan.ends[k][b], start) << "level " << k << " band " << b;
      start = plan.ends[k][b];
    }
  }
}

TEST(LevelBandPlan, NoUploadBandsNoLevelBands) {
  const cuda::BandedLevel video[] = {{3, 32}, {4, 32}};
  const cuda::UploadBandPlan upload = cuda::plan_upload_bands(1280, 720, kTile);
  EXPECT_EQ(cuda::plan_level_bands(upload, 720, video, 2).levels, 0);
}

}  // namespace
}  // namespace gpusift::testing
