// SPDX-License-Identifier: LGPL-2.1-or-later
// keypointmatcher's object finding apart from GStreamer: the outline checks that keep false
// detections out, the region's pixel box, and the finder on synthetic features with known
// homographies.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gpusift/matcher.h"
#include "gpusift/object_finding.h"

namespace gpusift::objects {
namespace {

constexpr int kReferenceWidth = 201;
constexpr int kReferenceHeight = 101;

Matrix3 shift(double dx, double dy) {
  return {1, 0, dx, 0, 1, dy, 0, 0, 1};
}

Matrix3 similarity(double degrees, double scale, double dx, double dy) {
  const double a = degrees * M_PI / 180.0;
  const double c = std::cos(a) * scale, s = std::sin(a) * scale;
  return {c, -s, dx, s, c, dy, 0, 0, 1};
}

std::string why_not(const Matrix3& h) {
  const char* reason = implausible_outline(h, kReferenceWidth, kReferenceHeight);
  return reason ? reason : "";
}

TEST(ObjectOutline, CornersAreTheCornerPixelCentresMapped) {
  Outline corners;
  ASSERT_TRUE(
      project_reference_corners(shift(10, 20), kReferenceWidth, kReferenceHeight, &corners));
  const Outline expected = {10, 20, 210, 20, 210, 120, 10, 120};
  EXPECT_EQ(corners, expected);
  // The right edge of a 129 pixel wide reference on the horizon.
  EXPECT_FALSE(project_reference_corners({1, 0, 0, 0, 1, 0, -1.0 / 128.0, 0, 1}, 129,
                                         kReferenceHeight, &corners));
}

TEST(ObjectOutline, RotationsScalesAndPerspectiveArePlausible) {
  EXPECT_EQ(why_not(shift(10, 20)), "");
  for (double degrees : {0.0, 45.0, 90.0, 180.0, -135.0})
    EXPECT_EQ(why_not(similarity(degrees, 0.5, 300, 200)), "") << degrees;
  EXPECT_EQ(why_not(similarity(10, 4.0, 300, 200)), "");
  EXPECT_EQ(why_not({1, 0.1, 5, 0.05, 1, 3, 0.002, 0.001, 1}), "");
}

TEST(ObjectOutline, MirrorImagesAndTwistedOutlinesAreRefused) {
  EXPECT_EQ(why_not({-1, 0, 300, 0, 1, 0, 0, 0, 1}), "the outline is not convex or is mirrored");
  EXPECT_EQ(why_not({1, 0, 0, 0, -1, 300, 0, 0, 1}), "the outline is not convex or is mirrored");
  // Collapsed onto a line or a point.
  EXPECT_EQ(why_not({1, 0, 0, 1, 0, 0, 0, 0, 1}), "the outline is not convex or is mirrored");
  EXPECT_EQ(why_not({0, 0, 5, 0, 0, 5, 0, 0, 1}), "the outline is not convex or is mirrored");
}

TEST(ObjectOutline, OutlinesReachingBehindTheCameraAreRefused) {
  const std::string behind = "the reference would reach behind the camera";
  EXPECT_EQ(why_not({1, 0, 0, 0, 1, 0, -1.0 / 128.0, 0, 1}), behind);  // w < 0 on the right
  EXPECT_EQ(why_not({1, 0, 0, 0, 1, 0, 0, -1.0 / 64.0, 1}), behind);   // and at the bottom
  EXPECT_EQ(why_not({-1, 0, 0, 0, -1, 0, 1.0 / 128.0, 0, -1}), behind);
}

TEST(ObjectOutline, TinyAndHugeOutlinesAreRefused) {
  EXPECT_EQ(why_not(similarity(0, 0.04, 100, 100)), "the outline is too small");
  EXPECT_EQ(why_not(similarity(30, 21.0, 100, 100)), "the outline's size is implausible");
  // Above the absolute minimum, but under 1/400 of a large reference's area.
  EXPECT_STREQ(implausible_outline(similarity(30, 1.0 / 21.0, 100, 100), 2001, 1001),
               "the outline's size is implausible");
  EXPECT_EQ(implausible_outline(similarity(30, 1.0 / 19.0, 100, 100), 2001, 1001), nullptr);
}

TEST(OutlinePixelBox, RoundsOutwardsScalesAndClips) {
  PixelBox box;
  ASSERT_TRUE(
      outline_pixel_box({10.2, 20.7, 30.5, 21.0, 29.9, 40.1, 9.6, 39.0}, 1.0, 1.0, 640, 480, &box));
  EXPECT_EQ(box.x, 9);
  EXPECT_EQ(box.y, 20);
  EXPECT_EQ(box.width, 31 - 9 + 1);
  EXPECT_EQ(box.height, 41 - 20 + 1);
  ASSERT_TRUE(outline_pixel_box({10, 20, 30, 20, 30, 40, 10, 40}, 0.5, 2.0, 640, 480, &box));
  EXPECT_EQ(box.x, 5);
  EXPECT_EQ(box.y, 40);
  EXPECT_EQ(box.width, 11);
  EXPECT_EQ(box.height, 41);
  ASSERT_TRUE(
      outline_pixel_box({-50, -1e12, 700, -30, 700, 500, -50, 1e12}, 1.0, 1.0, 640, 480, &box));
  EXPECT_EQ(box.x, 0);
  EXPECT_EQ(box.y, 0);
  EXPECT_EQ(box.width, 640);
  EXPECT_EQ(box.height, 480);
  EXPECT_FALSE(outline_pixel_box({700, 10, 800, 10, 800, 50, 700, 50}, 1.0, 1.0, 640, 480, &box));
}

// Random keypoints of the reference with distinct unit descriptors; the frame holds `inliers` of
// them moved by h (in reverse order), `decoys` more of them at random places (false matches)
// and `outliers` unrelated ones; `unmatched` more reference keypoints are not in the frame.
struct Mix {
  int inliers = 0;
  int decoys = 0;
  int outliers = 0;
  int unmatched = 0;
};

struct SyntheticPair {
  std::vector<Keypoint> reference_keypoints, frame_keypoints;
  std::vector<float> reference_descriptors, frame_descriptors;
};

std::vector<float> random_descriptor(std::mt19937* random) {
  std::normal_distribution<float> value(0.0f, 1.0f);
  std::vector<float> row(128);
  double norm = 0.0;
  for (float& v : row) {
    v = std::abs(value(*random));
    norm += v * v;
  }
  for (float& v : row)
    v = static_cast<float>(v / std::sqrt(norm));
  return row;
}

SyntheticPair synthetic_pair(const Matrix3& h, const Mix& mix, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> x(0.0f, kReferenceWidth - 1.0f);
  std::uniform_real_distribution<float> y(0.0f, kReferenceHeight - 1.0f);
  std::uniform_real_distribution<float> fx(0.0f, 639.0f), fy(0.0f, 479.0f);
  SyntheticPair pair;
  const int inliers = mix.inliers;
  for (int i = 0; i < inliers + mix.decoys + mix.unmatched; ++i) {
    const Keypoint k{x(random), y(random), 4.0f, 0.0f, 0.1f, 0, -1};
    pair.reference_keypoints.push_back(k);
    const std::vector<float> d = random_descriptor(&random);
    pair.reference_descriptors.insert(pair.reference_descriptors.end(), d.begin(), d.end());
  }
  for (int i = inliers - 1; i >= 0; --i) {
    const Keypoint& k = pair.reference_keypoints[i];
    const double w = h[6] * k.x + h[7] * k.y + h[8];
    Keypoint moved = k;
    moved.x = static_cast<float>((h[0] * k.x + h[1] * k.y + h[2]) / w);
    moved.y = static_cast<float>((h[3] * k.x + h[4] * k.y + h[5]) / w);
    pair.frame_keypoints.push_back(moved);
    pair.frame_descriptors.insert(pair.frame_descriptors.end(),
                                  pair.reference_descriptors.begin() + i * 128,
                                  pair.reference_descriptors.begin() + (i + 1) * 128);
  }
  for (int i = inliers; i < inliers + mix.decoys; ++i) {
    pair.frame_keypoints.push_back(Keypoint{fx(random), fy(random), 4.0f, 0.0f, 0.1f, 0, -1});
    pair.frame_descriptors.insert(pair.frame_descriptors.end(),
                                  pair.reference_descriptors.begin() + i * 128,
                                  pair.reference_descriptors.begin() + (i + 1) * 128);
  }
  for (int i = 0; i < mix.outliers; ++i) {
    pair.frame_keypoints.push_back(Keypoint{fx(random), fy(random), 4.0f, 0.0f, 0.1f, 0, -1});
    const std::vector<float> d = random_descriptor(&random);
    pair.frame_descriptors.insert(pair.frame_descriptors.end(), d.begin(), d.end());
  }
  return pair;
}

FeatureSet set_of(const std::vector<Keypoint>& keypoints, const std::vector<float>& descriptors) {
  FeatureSet set;
  set.keypoints = keypoints.data();
  set.count = static_cast<int>(keypoints.size());
  set.descriptors = DescriptorSetView{descriptors.data(), set.count, 128, DescriptorFormat::kFloat,
                                      MemoryKind::kHost};
  return set;
}

Detection find(const SyntheticPair& pair, const FinderParams& params) {
  auto matcher = create_matcher(Backend::kCpu);
  ObjectFinder finder(matcher.get());
  Detection detection;
  finder.find(set_of(pair.reference_keypoints, pair.reference_descriptors), kReferenceWidth,
              kReferenceHeight, set_of(pair.frame_keypoints, pair.frame_descriptors), params,
              &detection);
  return detection;
}

TEST(ObjectFinder, FindsAKnownHomographyAmongOutliers) {
  const Matrix3 truth = {0.8, -0.3, 250, 0.25, 0.75, 120, 2e-4, -1e-4, 1};
  const Detection d = find(synthetic_pair(truth, Mix{60, 20, 300, 40}, 1), FinderParams{});
  ASSERT_TRUE(d.found) << d.reason;
  EXPECT_EQ(d.matches, 80);
  EXPECT_EQ(d.inliers, 60);
  Outline expected;
  ASSERT_TRUE(project_reference_corners(truth, kReferenceWidth, kReferenceHeight, &expected));
  for (int i = 0; i < 8; ++i)
    EXPECT_NEAR(d.corners[i], expected[i], 0.01) << i;
}

// The frame holds the inliers at indices 0..59 and the decoys (matched, but elsewhere) at
// 60..79: the support is exactly the former, as many as the inliers; a detection that fails on
// the same finder leaves no support behind.
TEST(ObjectFinder, SupportingKeypointsAreTheFramesInliers) {
  const Matrix3 truth = {0.8, -0.3, 250, 0.25, 0.75, 120, 2e-4, -1e-4, 1};
  const SyntheticPair pair = synthetic_pair(truth, Mix{60, 20, 300, 40}, 1);
  auto matcher = create_matcher(Backend::kCpu);
  ObjectFinder finder(matcher.get());
  Detection d;
  finder.find(set_of(pair.reference_keypoints, pair.reference_descriptors), kReferenceWidth,
              kReferenceHeight, set_of(pair.frame_keypoints, pair.frame_descriptors),
              FinderParams{}, &d);
  ASSERT_TRUE(d.found) << d.reason;
  ASSERT_EQ(d.supporting_keypoints.size(), static_cast<size_t>(d.inliers));
  for (int i = 0; i < 60; ++i)
    EXPECT_EQ(d.supporting_keypoints[static_cast<size_t>(i)], i);

  const SyntheticPair empty = synthetic_pair(truth, Mix{11, 0, 200, 50}, 3);
  finder.find(set_of(empty.reference_keypoints, empty.reference_descriptors), kReferenceWidth,
              kReferenceHeight, set_of(empty.frame_keypoints, empty.frame_descriptors),
              FinderParams{}, &d);
  EXPECT_FALSE(d.found);
  EXPECT_TRUE(d.supporting_keypoints.empty());
}

TEST(ObjectFinder, SaysWhyNothingWasFound) {
  const Matrix3 truth = similarity(20, 1.0, 200, 150);
  FinderParams params;
  params.min_inliers = 12;
  EXPECT_STREQ(find(synthetic_pair(truth, Mix{3, 0, 0, 0}, 2), params).reason, "too few keypoints");
  const Detection few = find(synthetic_pair(truth, Mix{11, 0, 200, 50}, 3), params);
  EXPECT_FALSE(few.found);
  EXPECT_STREQ(few.reason, "too few matches");
  params.min_inliers = 40;
  const Detection short_of = find(synthetic_pair(truth, Mix{30, 20, 10, 50}, 4), params);
  EXPECT_FALSE(short_of.found);
  EXPECT_EQ(short_of.inliers, 30);
  EXPECT_STREQ(short_of.reason, "too few inliers");
  params.min_inliers = 12;
  // RANSAC itself keeps only samples that keep their orientation.
  const Detection mirrored =
      find(synthetic_pair({-1, 0, 400, 0, 1, 50, 0, 0, 1}, Mix{40, 0, 0, 0}, 5), params);
  EXPECT_FALSE(mirrored.found);
}

}  // namespace
}  // namespace gpusift::objects
