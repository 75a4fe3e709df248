// SPDX-License-Identifier: LGPL-2.1-or-later
// nfeatures spread over a grid (KeypointDistribution::kGrid): the grid's geometry, the selection
// against a round-by-round reference written apart from it, and both CPU extractors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "feature_identity.h"
#include "gpusift/cpu_sift.h"
#include "gpusift/cpu_surf.h"
#include "gpusift/error.h"
#include "gpusift/keypoint_grid.h"
#include "gpusift/keypoint_selection.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

Keypoint keypoint_at(float x, float y, float response) {
  return Keypoint{x, y, 4.f, 0.f, response, 0, -1};
}

// The selection as its documentation tells it, with no sort keys: rounds in which every cell
// gives its next strongest keypoint (ties: the canonically first); the round that does not fit
// gives its strongest. Expects the keypoints in the canonical order, returns indices into them.
std::set<size_t> spread_by_rounds(const std::vector<Keypoint>& keypoints, size_t count,
                                  const KeypointGrid& grid) {
  auto stronger = [&](size_t a, size_t b) {
    if (keypoints[a].response != keypoints[b].response)
      return keypoints[a].response > keypoints[b].response;
    return a < b;
  };
  std::map<int, std::vector<size_t>> cells;
  for (size_t i = 0; i < keypoints.size(); ++i)
    cells[keypoint_grid_cell(grid, keypoints[i])].push_back(i);
  for (auto& [cell, members] : cells)
    std::sort(members.begin(), members.end(), stronger);
  std::set<size_t> kept;
  for (size_t round = 0; kept.size() < count; ++round) {
    std::vector<size_t> taken;
    for (const auto& [cell, members] : cells) {
      if (round < members.size())
        taken.push_back(members[round]);
    }
    if (taken.empty())
      break;
    std::sort(taken.begin(), taken.end(), stronger);
    for (size_t i = 0; i < taken.size() && kept.size() < count; ++i)
      kept.insert(taken[i]);
  }
  return kept;
}

std::vector<Keypoint> random_keypoints(int width, int height, int n, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> x(-0.5f, width - 0.5f), y(-0.5f, height - 0.5f);
  // Few distinct responses, so that ties are common and their order is tested.
  std::uniform_int_distribution<int> response(1, 20);
  std::vector<Keypoint> keypoints;
  for (int i = 0; i < n; ++i)
    keypoints.push_back(keypoint_at(x(random), y(random), 0.01f * response(random)));
  sort_and_deduplicate(&keypoints);
  return keypoints;
}

TEST(KeypointGrid, CellsCoverTheFrameAndHoldAboutFourOfTheBudget) {
  for (const auto& [width, height, budget] :
       std::vector<std::tuple<int, int, int>>{{640, 480, 500},
                                              {1920, 1080, 2000},
                                              {3840, 2160, 20000},
                                              {1, 1, 500},
                                              {16384, 3, 100},
                                              {1280, 720, 1}}) {
    const KeypointGrid grid = keypoint_grid_for(width, height, budget);
    SCOPED_TRACE(::testing::Message() << width << "x" << height << " budget " << budget);
    ASSERT_GE(grid.cell_side, 1);
    EXPECT_GE(static_cast<long long>(grid.columns) * grid.cell_side, width);
    EXPECT_LT(static_cast<long long>(grid.columns - 1) * grid.cell_side, width);
    EXPECT_GE(static_cast<long long>(grid.rows) * grid.cell_side, height);
    EXPECT_LT(static_cast<long long>(grid.rows - 1) * grid.cell_side, height);
    EXPECT_LE(grid.columns * grid.rows, kMaxGridCells);
  }
  // 640x480 for 500: 125 cells wanted, 50-pixel cells, 13 x 10 of them.
  const KeypointGrid vga = keypoint_grid_for(640, 480, 500);
  EXPECT_EQ(vga.cell_side, 50);
  EXPECT_EQ(vga.columns, 13);
  EXPECT_EQ(vga.rows, 10);
  // A budget past kMaxGridCells cells is capped there.
  const KeypointGrid capped = keypoint_grid_for(3840, 2160, 1 << 22);
  EXPECT_LE(capped.columns * capped.rows, kMaxGridCells);
  EXPECT_GT(capped.columns * capped.rows, kMaxGridCells / 2);
}

TEST(KeypointGrid, PositionsOutsideTheFrameGoToTheEdgeCells) {
  const KeypointGrid grid{10, 4, 3};
  EXPECT_EQ(keypoint_grid_cell(grid, keypoint_at(-0.4f, -0.4f, 1)), 0);
  EXPECT_EQ(keypoint_grid_cell(grid, keypoint_at(9.99f, 0, 1)), 0);
  EXPECT_EQ(keypoint_grid_cell(grid, keypoint_at(10.f, 0, 1)), 1);
  EXPECT_EQ(keypoint_grid_cell(grid, keypoint_at(10.f, 10.f, 1)), 5);
  EXPECT_EQ(keypoint_grid_cell(grid, keypoint_at(39.6f, 29.6f, 1)), 11);
  EXPECT_EQ(keypoint_grid_cell(grid, keypoint_at(1e6f, 1e6f, 1)), 11);
}

TEST(KeypointGrid, StrongestFirstKeysOrderResponsesDescending) {
  const float responses[] = {1e30f, 3.f, 0.5f, 1e-30f, 0.f, -1e-30f, -2.f};
  for (size_t i = 0; i + 1 < std::size(responses); ++i)
    EXPECT_LT(strongest_first_key(responses[i]), strongest_first_key(responses[i + 1])) << i;
  EXPECT_EQ(strongest_first_key(0.f), strongest_first_key(-0.f));
}

TEST(RetainSpread, KeepsWhatRoundsOfEveryCellsStrongestKeep) {
  for (unsigned seed = 1; seed <= 40; ++seed) {
    const int width = 200 + 37 * static_cast<int>(seed), height = 100 + 23 * static_cast<int>(seed);
    const std::vector<Keypoint> all = random_keypoints(width, height, 50 * seed, seed);
    for (size_t count : {size_t{1}, size_t{7}, all.size() / 3, all.size() - 1}) {
      const KeypointGrid grid = keypoint_grid_for(width, height, static_cast<int>(count));
      const std::set<size_t> expected = spread_by_rounds(all, count, grid);
      std::vector<Keypoint> kept = all;
      retain_spread(&kept, count, grid);
      ASSERT_EQ(kept.size(), count) << "seed " << seed;
      ASSERT_EQ(expected.size(), count);
      size_t at = 0;
      for (size_t index : expected) {  // ascending indices: the canonical order
        ASSERT_TRUE(keypoint_same_feature(kept[at], all[index]) &&
                    kept[at].response == all[index].response)
            << "seed " << seed << " count " << count << " position " << at;
        ++at;
      }
    }
  }
}

TEST(RetainSpread, OneCellKeepsTheStrongestAsGlobal) {
  const std::vector<Keypoint> all = random_keypoints(64, 64, 400, 7);
  const KeypointGrid one_cell = keypoint_grid_for(64, 64, 3);
  ASSERT_EQ(one_cell.columns * one_cell.rows, 1);
  std::vector<Keypoint> spread = all, strongest = all;
  retain_spread(&spread, 100, one_cell);
  retain_strongest(&strongest, 100);
  ASSERT_EQ(spread.size(), strongest.size());
  for (size_t i = 0; i < spread.size(); ++i)
    EXPECT_TRUE(keypoint_same_feature(spread[i], strongest[i])) << i;
}

TEST(RetainSpread, TextureCannotTakeTheBudget) {
  // A textured corner of strong keypoints and weak ones over the rest of the frame.
  std::vector<Keypoint> all;
  for (int i = 0; i < 2000; ++i)
    all.push_back(keypoint_at(0.5f + (i % 40), 0.5f + (i / 40) * 0.7f, 1.f + i % 13));
  for (int y = 25; y < 480; y += 50) {
    for (int x = 25; x < 640; x += 50)
      all.push_back(keypoint_at(static_cast<float>(x), static_cast<float>(y), 0.1f));
  }
  sort_and_deduplicate(&all);
  const int budget = 500;
  const KeypointGrid grid = keypoint_grid_for(640, 480, budget);
  std::vector<Keypoint> spread = all, strongest = all;
  retain_spread(&spread, budget, grid);
  retain_strongest(&strongest, budget);
  auto cells_covered = [&](const std::vector<Keypoint>& keypoints) {
    std::set<int> cells;
    for (const Keypoint& k : keypoints)
      cells.insert(keypoint_grid_cell(grid, k));
    return cells.size();
  };
  EXPECT_EQ(cells_covered(strongest), 1u);
  // Every cell has a weak keypoint, and the first round takes one of each.
  EXPECT_EQ(cells_covered(spread), static_cast<size_t>(grid.columns * grid.rows));
  EXPECT_EQ(spread.size(), static_cast<size_t>(budget));
}

TEST(RetainSpread, FewerKeypointsThanTheBudgetAreAllKept) {
  std::vector<Keypoint> all = random_keypoints(320, 240, 100, 3);
  const std::vector<Keypoint> before = all;
  retain_spread(&all, before.size(), keypoint_grid_for(320, 240, 100));
  ASSERT_EQ(all.size(), before.size());
  retain_spread(&all, before.size() + 5, keypoint_grid_for(320, 240, 105));
  ASSERT_EQ(all.size(), before.size());
}

TEST(KeypointDistribution, NamesParseAndBadValuesAreRefused) {
  for (KeypointDistribution d : {KeypointDistribution::kGlobal, KeypointDistribution::kGrid}) {
    KeypointDistribution parsed = d == KeypointDistribution::kGrid ? KeypointDistribution::kGlobal
                                                                   : KeypointDistribution::kGrid;
    ASSERT_TRUE(parse_keypoint_distribution(keypoint_distribution_name(d), &parsed));
    EXPECT_EQ(parsed, d);
  }
  KeypointDistribution parsed = KeypointDistribution::kGlobal;
  EXPECT_FALSE(parse_keypoint_distribution("Grid", &parsed));
  EXPECT_FALSE(parse_keypoint_distribution("", &parsed));
  SiftParams sift;
  sift.distribution = static_cast<KeypointDistribution>(7);
  EXPECT_THROW(validate(sift), Error);
  SurfParams surf;
  surf.distribution = static_cast<KeypointDistribution>(-1);
  EXPECT_THROW(validate(surf), Error);
}

// The extractor's grid result is the spread selection of its full result, descriptors included:
// selection comes before description and no descriptor depends on the other keypoints.
template <typename Extractor, typename Params>
void expect_spread_of_full_result(const cv::Mat& gray, Params params, int budget) {
  params.max_keypoints = 1 << 20;
  Extractor full_extractor(params);
  const Features full = full_extractor.extract(gray.data, gray.step, gray.cols, gray.rows);
  params.nfeatures = budget;
  params.distribution = KeypointDistribution::kGrid;
  Extractor spread_extractor(params);
  const Features spread = spread_extractor.extract(gray.data, gray.step, gray.cols, gray.rows);
  ASSERT_GT(full.keypoints.size(), static_cast<size_t>(2 * budget));

  std::vector<Keypoint> expected_keypoints = full.keypoints;
  retain_spread(&expected_keypoints, budget, keypoint_grid_for(gray.cols, gray.rows, budget));
  Features expected;
  expected.keypoints = expected_keypoints;
  expected.descriptor_format = full.descriptor_format;
  expected.descriptor_size = full.descriptor_size;
  expected.detected_count = budget;
  size_t row = 0;
  for (const Keypoint& k : expected_keypoints) {
    while (!keypoint_same_feature(full.keypoints[row], k))
      ++row;
    const auto first = full.float_descriptors.begin() + row * full.descriptor_size;
    expected.float_descriptors.insert(expected.float_descriptors.end(), first,
                                      first + full.descriptor_size);
  }
  EXPECT_TRUE(bit_identical(spread, expected));
}

TEST(SpreadExtraction, SiftOnABusyPhoto) {
  const cv::Mat gray = load_gray("coffee.png");
  ASSERT_FALSE(gray.empty());
  expect_spread_of_full_result<CpuSiftExtractor>(gray, video_sift_params(), 300);
}

TEST(SpreadExtraction, SurfOnAFineTexture) {
  const cv::Mat gray = load_gray("grass.png");
  ASSERT_FALSE(gray.empty());
  expect_spread_of_full_result<CpuSurfExtractor>(gray, SurfParams{}, 300);
}

// On texture beside plain regions: the budget's first round reaches every cell that has a
// keypoint, where global top-N leaves most of them empty.
TEST(SpreadExtraction, ReachesEveryCellThatHasAKeypoint) {
  const cv::Mat gray = load_gray("camera.png");
  ASSERT_FALSE(gray.empty());
  const int budget = 500;
  SiftParams params = video_sift_params();
  CpuSiftExtractor all(params);
  params.nfeatures = budget;
  CpuSiftExtractor global(params);
  params.distribution = KeypointDistribution::kGrid;
  CpuSiftExtractor grid(params);
  const KeypointGrid cells = keypoint_grid_for(gray.cols, gray.rows, budget);
  auto occupied = [&](const Features& f) {
    std::set<int> found;
    for (const Keypoint& k : f.keypoints)
      found.insert(keypoint_grid_cell(cells, k));
    return found;
  };
  const std::set<int> reachable = occupied(all.extract(gray.data, gray.step, gray.cols, gray.rows));
  const std::set<int> by_global =
      occupied(global.extract(gray.data, gray.step, gray.cols, gray.rows));
  const std::set<int> by_grid = occupied(grid.extract(gray.data, gray.step, gray.cols, gray.rows));
  std::printf("cells with keypoints: %zu of %d; kept by global %zu, by grid %zu\n",
              reachable.size(), cells.columns * cells.rows, by_global.size(), by_grid.size());
  ASSERT_LT(reachable.size(), static_cast<size_t>(budget));
  EXPECT_EQ(by_grid, reachable);
  EXPECT_LT(by_global.size(), reachable.size());
}

}  // namespace
}  // namespace gpusift::testing
