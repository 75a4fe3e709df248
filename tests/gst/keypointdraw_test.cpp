// SPDX-License-Identifier: LGPL-2.1-or-later
/* keypointdraw: the span rasterisers against a per-pixel distance test, clipping, and blending. */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "keypointoverlay/keypoint_draw.h"

namespace {

constexpr double kBoundary = 1e-6;

/* Expected coverage of pixel (x, y) from its distance to the shape: 1 inside, 0 outside, -1 where
 * it lies on the boundary within rounding and either answer is right. */
template <typename Distance>
std::vector<int> expected_mask(int width, int height, double half, Distance distance) {
  std::vector<int> expected(static_cast<size_t>(width) * height);
  for (int y = 0; y < height; y++) {
    for (int x = 0; x < width; x++) {
      const double margin = half - distance(x, y);
      expected[static_cast<size_t>(y) * width + x] =
          margin > kBoundary ? 1 : (margin < -kBoundary ? 0 : -1);
    }
  }
  return expected;
}

void expect_mask(const KeypointDrawMask& mask, const std::vector<int>& expected) {
  int mismatches = 0;
  for (int y = 0; y < mask.height; y++) {
    for (int x = 0; x < mask.width; x++) {
      const int want = expected[static_cast<size_t>(y) * mask.width + x];
      const int got = mask.pixels[static_cast<size_t>(y) * mask.width + x];
      if (want != -1 && want != got && mismatches++ < 5) {
        ADD_FAILURE() << "pixel " << x << "," << y << " is " << got << ", expected " << want;
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

double segment_distance(double px, double py, double x0, double y0, double x1, double y1) {
  const double dx = x1 - x0, dy = y1 - y0;
  const double length2 = dx * dx + dy * dy;
  double t = length2 > 0 ? ((px - x0) * dx + (py - y0) * dy) / length2 : 0;
  t = std::clamp(t, 0.0, 1.0);
  return std::hypot(px - (x0 + t * dx), py - (y0 + t * dy));
}

TEST(KeypointDraw, RingsMatchTheDistanceTest) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> position(-10, 50), radius(0, 30), thickness(1, 6);
  for (int i = 0; i < 200; i++) {
    const double cx = position(rng), cy = position(rng), r = radius(rng), t = thickness(rng);
    KeypointDrawMask mask;
    keypoint_draw_mask_init(&mask, 41, 37);
    keypoint_draw_ring(&mask, cx, cy, r, t);
    expect_mask(mask, expected_mask(41, 37, t / 2, [&](int x, int y) {
                  return std::abs(std::hypot(x - cx, y - cy) - r);
                }));
    keypoint_draw_mask_release(&mask);
  }
}

TEST(KeypointDraw, SegmentsMatchTheDistanceTest) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> position(-10, 50), thickness(1, 6);
  for (int i = 0; i < 300; i++) {
    const double x0 = position(rng), y0 = position(rng), t = thickness(rng);
    /* Every few, an axis-aligned or zero-length segment. */
    const double x1 = i % 7 == 0 ? x0 : position(rng);
    const double y1 = i % 5 == 0 ? y0 : position(rng);
    KeypointDrawMask mask;
    keypoint_draw_mask_init(&mask, 41, 37);
    keypoint_draw_segment(&mask, x0, y0, x1, y1, t);
    expect_mask(mask, expected_mask(41, 37, t / 2, [&](int x, int y) {
                  return segment_distance(x, y, x0, y0, x1, y1);
                }));
    keypoint_draw_mask_release(&mask);
  }
}

TEST(KeypointDraw, HostileShapesLeaveTheMaskAlone) {
  KeypointDrawMask mask;
  keypoint_draw_mask_init(&mask, 8, 8);
  keypoint_draw_ring(&mask, NAN, 2, 3, 1);
  keypoint_draw_ring(&mask, 2, 2, -3, 1);
  keypoint_draw_ring(&mask, 2, 2, INFINITY, 1);
  keypoint_draw_ring(&mask, 1e300, 2, 3, 1);
  keypoint_draw_ring(&mask, 2, 2, 3, 0);
  keypoint_draw_segment(&mask, 0, 0, INFINITY, 0, 1);
  keypoint_draw_segment(&mask, -100, -100, -50, -50, 3);
  keypoint_draw_segment(&mask, 0, 0, 5, 5, -1);
  EXPECT_TRUE(std::all_of(mask.pixels, mask.pixels + 64, [](guint8 p) { return p == 0; }));
  EXPECT_LT(mask.dirty_x1, mask.dirty_x0);
  keypoint_draw_mask_release(&mask);
}

TEST(KeypointDraw, ClearResetsWhatWasDrawn) {
  KeypointDrawMask mask;
  keypoint_draw_mask_init(&mask, 16, 9);
  keypoint_draw_ring(&mask, 8, 4, 3, 2);
  keypoint_draw_segment(&mask, 0, 0, 15, 8, 1);
  EXPECT_TRUE(std::any_of(mask.pixels, mask.pixels + 16 * 9, [](guint8 p) { return p != 0; }));
  keypoint_draw_mask_clear(&mask);
  EXPECT_TRUE(std::all_of(mask.pixels, mask.pixels + 16 * 9, [](guint8 p) { return p == 0; }));
  keypoint_draw_mask_release(&mask);

  KeypointDrawMask empty;
  keypoint_draw_mask_init(&empty, 0, 0);
  keypoint_draw_ring(&empty, 0, 0, 5, 1);
  keypoint_draw_mask_clear(&empty);
  keypoint_draw_mask_release(&empty);
}

TEST(KeypointDraw, BlendCoversEachSubsampledBlockThatTouchesTheMask) {
  /* A 5x3 mask over 2x2-subsampled 3x2 samples interleaved as in NV12 (pixel stride 2). */
  KeypointDrawMask mask;
  keypoint_draw_mask_init(&mask, 5, 3);
  keypoint_draw_ring(&mask, 4, 2, 0, 1); /* the bottom-right pixel only */
  keypoint_draw_ring(&mask, 1, 0, 0, 1);
  std::vector<guint8> samples(3 * 2 * 2, 10);
  const KeypointDrawComponent u = {samples.data(), 6, 2, 3, 2, 1, 1};
  const KeypointDrawComponent v = {samples.data() + 1, 6, 2, 3, 2, 1, 1};
  const KeypointDrawComponent components[] = {u, v};
  const guint8 values[] = {100, 200};
  keypoint_draw_blend(&mask, components, values, 2, 255);
  EXPECT_EQ(samples, (std::vector<guint8>{100, 200, 10, 10, 10, 10,  //
                                          10, 10, 10, 10, 100, 200}));

  /* Half opacity rounds to nearest. */
  keypoint_draw_blend(&mask, components, values, 2, 128);
  EXPECT_EQ(samples[0], (100 * 128 + 100 * 127 + 127) / 255);
  EXPECT_EQ(samples[1], (200 * 128 + 200 * 127 + 127) / 255);
  keypoint_draw_mask_release(&mask);
}

}  // namespace
