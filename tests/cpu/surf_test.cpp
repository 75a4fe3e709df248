// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU SURF backend on real images: plausible keypoints in OpenCV's conventions, bit-identical
// results, correct matches under a known transform compared with our SIFT, and the edges of its
// contract (tiny, huge and invalid frames, invalid parameters, the keypoint limits).
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "feature_agreement.h"
#include "feature_identity.h"
#include "gpusift/cpu_sift.h"
#include "gpusift/cpu_surf.h"
#include "gpusift/error.h"
#include "gpusift/keypoint_selection.h"
#include "gpusift/surf_orientation.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

constexpr int kMinKeypoints = 300;

Features extract(CpuSurfExtractor& extractor, const cv::Mat& gray) {
  return extractor.extract(gray.data, gray.step, gray.cols, gray.rows);
}

Features extract_fresh(const cv::Mat& gray, const SurfParams& params = SurfParams{}) {
  CpuSurfExtractor extractor{params};
  return extract(extractor, gray);
}

Features sift_of(const cv::Mat& gray) {
  CpuSiftExtractor extractor{SiftParams{}};
  return extractor.extract(gray.data, gray.step, gray.cols, gray.rows);
}

void expect_error(const std::function<void()>& call, ErrorCode code, const std::string& text) {
  try {
    call();
    ADD_FAILURE() << "no gpusift::Error thrown; expected " << error_code_name(code);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << error_code_name(e.code()) << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos)
        << "message \"" << e.what() << "\" should mention \"" << text << "\"";
  }
}

class ScopedThreadCount {
 public:
  explicit ScopedThreadCount(int threads) : previous_(omp_get_max_threads()) {
    omp_set_num_threads(threads);
  }
  ~ScopedThreadCount() { omp_set_num_threads(previous_); }
  ScopedThreadCount(const ScopedThreadCount&) = delete;
  ScopedThreadCount& operator=(const ScopedThreadCount&) = delete;

 private:
  int previous_;
};

cv::Mat astronaut() {
  return load_gray("astronaut.png");
}

std::string image_label(const ::testing::TestParamInfo<std::string>& info) {
  return info.param.substr(0, info.param.find('.'));
}

// ---- keypoints on real images ----------------------------------------------------------------

class RealImage : public ::testing::TestWithParam<std::string> {};

// OpenCV's conventions: canonical order without duplicates, positions inside the frame, sizes
// of at least the smallest filter, octave indices, the Laplacian's sign as class_id, angles in
// [0, 360), responses above the threshold and unit descriptor rows.
void expect_conventions(const Features& f, const cv::Mat& gray, const SurfParams& params) {
  ASSERT_EQ(f.descriptor_row_count(), static_cast<int>(f.keypoints.size()));
  ASSERT_EQ(f.descriptor_size, surf_descriptor_size(params));
  EXPECT_TRUE(std::is_sorted(f.keypoints.begin(), f.keypoints.end(), keypoint_canonical_less));
  EXPECT_EQ(std::adjacent_find(f.keypoints.begin(), f.keypoints.end(), keypoint_same_feature),
            f.keypoints.end());
  for (size_t i = 0; i < f.keypoints.size(); ++i) {
    const Keypoint& k = f.keypoints[i];
    ASSERT_TRUE(k.x >= 0 && k.x <= gray.cols - 1 && k.y >= 0 && k.y <= gray.rows - 1) << i;
    ASSERT_GE(k.size, 9.f) << i;
    ASSERT_EQ(k.size, std::round(k.size)) << i;
    ASSERT_TRUE(k.octave >= 0 && k.octave < params.n_octaves) << i;
    ASSERT_TRUE(k.class_id == 1 || k.class_id == -1) << i;
    ASSERT_TRUE(k.angle >= 0.f && k.angle < 360.f) << i;
    ASSERT_GT(k.response, params.hessian_threshold) << i;
    double norm = 0;
    for (int v = 0; v < f.descriptor_size; ++v) {
      const float value = f.float_descriptors[i * f.descriptor_size + v];
      norm += static_cast<double>(value) * value;
    }
    ASSERT_NEAR(std::sqrt(norm), 1.0, 1e-4) << i;
  }
}

TEST_P(RealImage, PlausibleKeypointsInOpenCvConventions) {
  const cv::Mat gray = load_gray(GetParam());
  ASSERT_FALSE(gray.empty());
  const Features surf = extract_fresh(gray);
  const size_t sift = sift_of(gray).keypoints.size();
  std::printf("%-14s keypoints: surf %5zu sift %5zu\n", GetParam().c_str(), surf.keypoints.size(),
              sift);
  EXPECT_GT(surf.keypoints.size(), static_cast<size_t>(kMinKeypoints));
  EXPECT_GT(surf.keypoints.size(), sift / 2);
  EXPECT_LT(surf.keypoints.size(), sift * 4);
  EXPECT_FALSE(surf.overflowed);
  EXPECT_EQ(surf.detected_count, static_cast<int>(surf.keypoints.size()));
  expect_conventions(surf, gray, SurfParams{});
  const int brighter =
      static_cast<int>(std::count_if(surf.keypoints.begin(), surf.keypoints.end(),
                                     [](const Keypoint& k) { return k.class_id > 0; }));
  EXPECT_GT(brighter, 0) << "dark blobs";
  EXPECT_LT(brighter, static_cast<int>(surf.keypoints.size())) << "bright blobs";
}

// Upright SURF finds the same keypoints, all at OpenCV's upright angle; the extended and the
// keypoint-only variants find them too.
TEST_P(RealImage, VariantsShareTheKeypoints) {
  const cv::Mat gray = load_gray(GetParam());
  ASSERT_FALSE(gray.empty());
  const Features plain = extract_fresh(gray);
  SurfParams upright_params;
  upright_params.upright = true;
  const Features upright = extract_fresh(gray, upright_params);
  expect_conventions(upright, gray, upright_params);
  ASSERT_EQ(upright.keypoints.size(), plain.keypoints.size());
  std::vector<Keypoint> turned = upright.keypoints;
  for (size_t i = 0; i < turned.size(); ++i) {
    ASSERT_EQ(turned[i].angle, kSurfUprightAngle);
    turned[i].angle = 0.f;
  }
  std::vector<Keypoint> unturned = plain.keypoints;
  for (Keypoint& k : unturned)
    k.angle = 0.f;
  sort_and_deduplicate(&turned);
  sort_and_deduplicate(&unturned);
  ASSERT_EQ(turned.size(), unturned.size());
  for (size_t i = 0; i < turned.size(); ++i)
    ASSERT_TRUE(keypoint_same_feature(turned[i], unturned[i])) << i;

  SurfParams extended_params;
  extended_params.extended = true;
  const Features extended = extract_fresh(gray, extended_params);
  EXPECT_EQ(extended.descriptor_size, kSurfExtendedDescriptorSize);
  expect_conventions(extended, gray, extended_params);
  EXPECT_EQ(extended.keypoints.size(), plain.keypoints.size());

  SurfParams bare_params;
  bare_params.descriptor = DescriptorFormat::kNone;
  const Features bare = extract_fresh(gray, bare_params);
  EXPECT_EQ(bare.descriptor_size, 0);
  EXPECT_TRUE(bare.float_descriptors.empty());
  EXPECT_EQ(bare.keypoints.size(), plain.keypoints.size());
}

INSTANTIATE_TEST_SUITE_P(Images, RealImage, ::testing::ValuesIn(parity_image_names()), image_label);

// ---- determinism -----------------------------------------------------------------------------

TEST(SurfDeterminism, SameFrameTwiceAndAfterAnotherSize) {
  const cv::Mat gray = astronaut(), other = load_gray("chelsea.png");
  CpuSurfExtractor extractor{SurfParams{}};
  const Features first = extract(extractor, gray);
  ASSERT_GT(first.keypoints.size(), static_cast<size_t>(kMinKeypoints));
  EXPECT_TRUE(bit_identical(first, extract(extractor, gray)));
  const Features between = extract(extractor, other);
  EXPECT_TRUE(bit_identical(first, extract(extractor, gray)));
  EXPECT_TRUE(bit_identical(between, extract_fresh(other)));
}

TEST(SurfDeterminism, IndependentOfThreadCount) {
  const cv::Mat gray = astronaut();
  Features single;
  {
    ScopedThreadCount threads(1);
    single = extract_fresh(gray);
  }
  ASSERT_GT(single.keypoints.size(), static_cast<size_t>(kMinKeypoints));
  EXPECT_TRUE(bit_identical(single, extract_fresh(gray))) << "default thread count";
  for (int count : {3, std::max(4, cpu_thread_count() * 2)}) {
    ScopedThreadCount threads(count);
    EXPECT_TRUE(bit_identical(single, extract_fresh(gray))) << count << " threads";
  }
  // Threads raised after construction.
  std::unique_ptr<CpuSurfExtractor> extractor;
  {
    ScopedThreadCount threads(1);
    extractor = std::make_unique<CpuSurfExtractor>(SurfParams{});
  }
  ScopedThreadCount threads(std::max(4, cpu_thread_count() * 2));
  EXPECT_TRUE(bit_identical(single, extract(*extractor, gray)));
}

// ---- matches against ground truth ------------------------------------------------------------

constexpr float kLoweRatio = 0.8f;
constexpr double kMaxReprojectionError = 3;

struct FeatureSet {
  std::vector<cv::KeyPoint> keypoints;
  cv::Mat descriptors;
};

FeatureSet as_feature_set(const Features& f) {
  return {to_cv_keypoints(f), to_cv_descriptors(f)};
}

// OpenCV's SIFT, the yardstick of SURF's correct matches: independent of our SIFT, so that a
// bug in it cannot make SURF's floors easier to meet.
FeatureSet opencv_sift_of(const cv::Mat& gray) {
  FeatureSet f;
  cv::SIFT::create()->detectAndCompute(gray, cv::noArray(), f.keypoints, f.descriptors);
  return f;
}

// Matches passing Lowe's ratio test whose original keypoint, moved by the known transform,
// lands within kMaxReprojectionError of its match in the warped image.
int correct_matches(const FeatureSet& original, const FeatureSet& warped,
                    const cv::Matx23d& transform) {
  std::vector<std::vector<cv::DMatch>> candidates;
  cv::BFMatcher(cv::NORM_L2).knnMatch(original.descriptors, warped.descriptors, candidates, 2);
  int correct = 0;
  for (const auto& pair : candidates) {
    if (pair.size() < 2 || pair[0].distance >= kLoweRatio * pair[1].distance)
      continue;
    const cv::Point2f from = original.keypoints[pair[0].queryIdx].pt;
    const cv::Point2f to = warped.keypoints[pair[0].trainIdx].pt;
    const cv::Vec2d expected = transform * cv::Vec3d(from.x, from.y, 1.0);
    if (std::hypot(expected[0] - to.x, expected[1] - to.y) < kMaxReprojectionError)
      ++correct;
  }
  return correct;
}

// The floors sit just under the shares measured on each image (CPU backend, 2026-11-28).
struct GroundTruthCase {
  std::string image;
  // Least share of OpenCV SIFT's correct matches. On the repetitive textures of brick and coins,
  // turned, SURF's Haar-wavelet angles err by a few degrees (SurfOrientation below), enough for
  // neighbouring bricks' descriptors to look alike, so these images hold it to a lower floor
  // (ScaledOnly shows the descriptors meet the target when the angle is right).
  double min_share_of_sift;
};

std::string case_label(const ::testing::TestParamInfo<GroundTruthCase>& info) {
  return info.param.image.substr(0, info.param.image.find('.'));
}

struct MatchCounts {
  int surf, sift;
};

// The image turned by `degrees` and scaled about its centre.
struct Warp {
  cv::Matx23d transform;
  cv::Mat image;
};

Warp warp_of(const cv::Mat& gray, double degrees, double scale) {
  const cv::Point2f centre((gray.cols - 1) * 0.5f, (gray.rows - 1) * 0.5f);
  Warp w{cv::getRotationMatrix2D(centre, degrees, scale), cv::Mat()};
  cv::warpAffine(gray, w.image, cv::Mat(w.transform), gray.size(), cv::INTER_LINEAR);
  return w;
}

// Correct matches of SURF (`params`) and of OpenCV's SIFT between the case's image and its warp,
// and the expectation that SURF has at least the case's share of SIFT's.
MatchCounts expect_share_of_sift(const GroundTruthCase& c, const char* what, double degrees,
                                 double scale, const SurfParams& params) {
  const cv::Mat gray = load_gray(c.image);
  if (gray.empty()) {
    ADD_FAILURE() << "cannot load " << c.image;
    return MatchCounts{0, 0};
  }
  const Warp w = warp_of(gray, degrees, scale);
  CpuSurfExtractor surf{params};
  const MatchCounts m{correct_matches(as_feature_set(extract(surf, gray)),
                                      as_feature_set(extract(surf, w.image)), w.transform),
                      correct_matches(opencv_sift_of(gray), opencv_sift_of(w.image), w.transform)};
  std::printf("%-10s %-14s correct matches: surf %4d sift %4d (%.3f, floor %.2f)\n", what,
              c.image.c_str(), m.surf, m.sift, static_cast<double>(m.surf) / m.sift,
              c.min_share_of_sift);
  ::testing::Test::RecordProperty("surf_correct_matches", m.surf);
  ::testing::Test::RecordProperty("sift_correct_matches", m.sift);
  EXPECT_GE(m.surf, c.min_share_of_sift * m.sift);
  return m;
}

SurfParams upright_params() {
  SurfParams params;
  params.upright = true;
  return params;
}

class RotatedAndScaled : public ::testing::TestWithParam<GroundTruthCase> {};

// 30 degrees and 0.8 about the centre, as homography_test.
TEST_P(RotatedAndScaled, CorrectMatchesComparableToSift) {
  EXPECT_GT(expect_share_of_sift(GetParam(), "rot30x0.8", 30, 0.8, SurfParams{}).surf, 100);
}

INSTANTIATE_TEST_SUITE_P(
    RealImages, RotatedAndScaled,
    ::testing::Values(GroundTruthCase{"astronaut.png", 1.05}, GroundTruthCase{"coffee.png", 1.75},
                      GroundTruthCase{"chelsea.png", 1.10}, GroundTruthCase{"camera.png", 1.10},
                      GroundTruthCase{"brick.png", 0.32}, GroundTruthCase{"coins.png", 0.60}),
    case_label);

class UprightRotated : public ::testing::TestWithParam<GroundTruthCase> {};

// Upright SURF tolerates small turns only; on the regular grid of brick its descriptors of
// neighbouring bricks stay too alike once turned by 10 degrees.
TEST_P(UprightRotated, CorrectMatchesComparableToSift) {
  expect_share_of_sift(GetParam(), "upright10", 10, 1, upright_params());
}

INSTANTIATE_TEST_SUITE_P(
    RealImages, UprightRotated,
    ::testing::Values(GroundTruthCase{"astronaut.png", 0.95}, GroundTruthCase{"coffee.png", 1.15},
                      GroundTruthCase{"chelsea.png", 1.15}, GroundTruthCase{"camera.png", 0.85},
                      GroundTruthCase{"brick.png", 0.09}, GroundTruthCase{"coins.png", 0.46}),
    case_label);

class ScaledOnly : public ::testing::TestWithParam<GroundTruthCase> {};

// Scaled by 0.8 without turning, upright SURF meets the target on every image, brick and coins
// included: its descriptors tell those textures apart when the angle is right. Their shortfall
// under rotation comes from the Haar-wavelet orientation (SurfOrientation below).
TEST_P(ScaledOnly, UprightCorrectMatchesComparableToSift) {
  expect_share_of_sift(GetParam(), "scale0.8", 0, 0.8, upright_params());
}

INSTANTIATE_TEST_SUITE_P(
    RealImages, ScaledOnly,
    ::testing::Values(GroundTruthCase{"astronaut.png", 1.75}, GroundTruthCase{"coffee.png", 3.2},
                      GroundTruthCase{"chelsea.png", 1.8}, GroundTruthCase{"camera.png", 1.9},
                      GroundTruthCase{"brick.png", 1.2}, GroundTruthCase{"coins.png", 1.3}),
    case_label);

// Median error, in degrees, of the angles of the keypoints that the warp repeats: within 2 px of
// the transformed position at the transformed size (within 20 %), the angle should have turned
// by -degrees (y points down).
double median_angle_error(const Features& original, const Features& warped,
                          const cv::Matx23d& transform, double degrees, double scale) {
  std::vector<double> errors;
  for (const Keypoint& a : original.keypoints) {
    const cv::Vec2d expected = transform * cv::Vec3d(a.x, a.y, 1.0);
    const Keypoint* match = nullptr;
    double nearest = 2.0;
    for (const Keypoint& b : warped.keypoints) {
      const double distance = std::hypot(expected[0] - b.x, expected[1] - b.y);
      const double size_ratio = b.size / (a.size * scale);
      if (distance < nearest && size_ratio > 0.8 && size_ratio < 1.25) {
        nearest = distance;
        match = &b;
      }
    }
    if (!match)
      continue;
    errors.push_back(std::fabs(std::remainder(match->angle - a.angle + degrees, 360.0)));
  }
  if (errors.empty())
    return 360;
  std::nth_element(errors.begin(), errors.begin() + errors.size() / 2, errors.end());
  return errors[errors.size() / 2];
}

// SURF's angles follow a 30 degree turn to within a few degrees (the Haar wavelets' limit, which
// is what costs brick and coins their matches); SIFT's, as a yardstick, to about one.
TEST(SurfOrientation, AnglesFollowTheTurnWithinAFewDegrees) {
  for (const char* image : {"astronaut.png", "brick.png", "coins.png"}) {
    const cv::Mat gray = load_gray(image);
    ASSERT_FALSE(gray.empty()) << image;
    const Warp w = warp_of(gray, 30, 0.8);
    CpuSurfExtractor surf{SurfParams{}};
    const double surf_error =
        median_angle_error(extract(surf, gray), extract(surf, w.image), w.transform, 30, 0.8);
    const double sift_error =
        median_angle_error(sift_of(gray), sift_of(w.image), w.transform, 30, 0.8);
    std::printf("%-14s median angle error: surf %.1f sift %.1f degrees\n", image, surf_error,
                sift_error);
    EXPECT_LT(surf_error, 8.0) << image;
    EXPECT_LT(sift_error, 2.0) << image;
  }
}

// ---- frames ----------------------------------------------------------------------------------

TEST(SurfFrames, TinyFramesGiveNoKeypoints) {
  const cv::Mat source = astronaut();
  ASSERT_FALSE(source.empty());
  CpuSurfExtractor extractor{SurfParams{}};
  // The first search layer needs the 21x21 filter one sample beyond it on each side.
  for (const auto& s : std::vector<std::pair<int, int>>{{1, 1}, {2, 2}, {7, 5}, {5, 7}, {22, 22}}) {
    const cv::Mat tiny = resized(source, s.first, s.second);
    Features f;
    ASSERT_NO_THROW(f = extract(extractor, tiny)) << s.first << "x" << s.second;
    EXPECT_TRUE(f.keypoints.empty()) << s.first << "x" << s.second;
    EXPECT_EQ(f.descriptor_row_count(), 0);
  }
  const cv::Mat small = resized(source, 48, 40);
  EXPECT_NO_THROW(extract(extractor, small));
}

TEST(SurfFrames, ConstantFrameHasNoKeypoints) {
  const cv::Mat flat(480, 640, CV_8U, cv::Scalar(128));
  const Features f = extract_fresh(flat);
  EXPECT_TRUE(f.keypoints.empty());
  EXPECT_EQ(f.detected_count, 0);
  EXPECT_FALSE(f.overflowed);
}

TEST(SurfFrames, LargeFrameWorks) {
  const cv::Mat large = resized(astronaut(), 4096, 4096);
  CpuSurfExtractor extractor{SurfParams{}};
  const auto start = std::chrono::steady_clock::now();
  const Features f = extract(extractor, large);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("4096x4096: %zu keypoints in %.2f s (%d threads), %.1f MiB reserved\n",
              f.keypoints.size(), seconds, cpu_thread_count(),
              extractor.reserved_bytes() / 1048576.0);
  EXPECT_GT(f.keypoints.size(), 1000u);
  EXPECT_FALSE(f.overflowed);
  expect_conventions(f, large, SurfParams{});
}

TEST(SurfFrames, PitchPaddingIsIgnored) {
  const cv::Mat packed = resized(astronaut(), 641, 479);
  const Features expected = extract_fresh(packed);
  ASSERT_GT(expected.keypoints.size(), static_cast<size_t>(kMinKeypoints));
  cv::RNG rng(7);
  for (int padding : {1, 64}) {
    cv::Mat padded(packed.rows, packed.cols + padding, CV_8U);
    rng.fill(padded, cv::RNG::UNIFORM, 0, 256);
    packed.copyTo(padded.colRange(0, packed.cols));
    CpuSurfExtractor extractor{SurfParams{}};
    const Features f = extractor.extract(padded.data, padded.step, packed.cols, packed.rows);
    EXPECT_TRUE(bit_identical(expected, f)) << "pitch " << padded.step;
  }
}

TEST(SurfFrames, HugeFrameIsRefusedBeforeTouchingMemory) {
  const int sizes[][2] = {{100000, 10}, {20000, 20000}, {kMaxFrameSide + 1, 1}};
  std::vector<uint8_t> small(64, 0);
  CpuSurfExtractor extractor{SurfParams{}};
  for (const auto& s : sizes) {
    expect_error([&] { extractor.extract(small.data(), s[0], s[0], s[1]); },
                 ErrorCode::kFrameTooLarge, std::to_string(s[0]) + "x" + std::to_string(s[1]));
    EXPECT_EQ(extractor.reserved_bytes(), 0u) << "nothing may be allocated";
  }
}

TEST(SurfFrames, InvalidFramesAreInvalidArgumentsAndLeaveOutputEmpty) {
  const cv::Mat gray = astronaut();
  CpuSurfExtractor extractor{SurfParams{}};
  Features out;
  extractor.extract(gray.data, gray.step, gray.cols, gray.rows, &out);
  const Features expected = out;
  expect_error([&] { extractor.extract(nullptr, gray.step, gray.cols, gray.rows, &out); },
               ErrorCode::kInvalidArgument, "null");
  EXPECT_TRUE(out.keypoints.empty());
  EXPECT_EQ(out.descriptor_row_count(), 0);
  expect_error([&] { extractor.extract(gray.data, gray.step, 0, gray.rows, &out); },
               ErrorCode::kInvalidArgument, "not positive");
  expect_error([&] { extractor.extract(gray.data, gray.cols - 1, gray.cols, gray.rows, &out); },
               ErrorCode::kInvalidArgument, "pitch");
  extractor.extract(gray.data, gray.step, gray.cols, gray.rows, &out);
  EXPECT_TRUE(bit_identical(expected, out));
}

TEST(SurfFrames, MemoryIsKeptForOneSizeAndFollowsIt) {
  const cv::Mat gray = astronaut();
  CpuSurfExtractor extractor{SurfParams{}};
  EXPECT_EQ(extractor.reserved_bytes(), 0u);
  extract(extractor, gray);
  const size_t reserved = extractor.reserved_bytes();
  EXPECT_GT(reserved, static_cast<size_t>(gray.total()) * 4);
  extract(extractor, gray);
  EXPECT_EQ(extractor.reserved_bytes(), reserved);
  extract(extractor, resized(gray, 1024, 1024));
  EXPECT_GT(extractor.reserved_bytes(), reserved);
  extract(extractor, gray);
  EXPECT_EQ(extractor.reserved_bytes(), reserved);
}

// ---- parameters ------------------------------------------------------------------------------

struct BadParam {
  const char* field;
  std::function<void(SurfParams&)> spoil;
};

TEST(SurfParamsCheck, InvalidValuesAreRefusedNamingTheField) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<BadParam> cases = {
      {"hessian_threshold", [=](SurfParams& p) { p.hessian_threshold = nan; }},
      {"hessian_threshold", [=](SurfParams& p) { p.hessian_threshold = inf; }},
      {"hessian_threshold", [](SurfParams& p) { p.hessian_threshold = -1; }},
      {"n_octaves", [](SurfParams& p) { p.n_octaves = 0; }},
      {"n_octaves", [](SurfParams& p) { p.n_octaves = kSurfMaxOctaves + 1; }},
      {"n_octave_layers", [](SurfParams& p) { p.n_octave_layers = 0; }},
      {"n_octave_layers", [](SurfParams& p) { p.n_octave_layers = kSurfMaxOctaveLayers + 1; }},
      {"nfeatures", [](SurfParams& p) { p.nfeatures = -1; }},
      {"max_keypoints", [](SurfParams& p) { p.max_keypoints = 0; }},
      {"max_keypoints", [](SurfParams& p) { p.max_keypoints = (1 << 22) + 1; }},
      {"descriptor", [](SurfParams& p) { p.descriptor = DescriptorFormat::kUint8; }},
      {"descriptor", [](SurfParams& p) { p.descriptor = DescriptorFormat::kRootSift; }},
      {"descriptor", [](SurfParams& p) { p.descriptor = static_cast<DescriptorFormat>(42); }},
  };
  for (const BadParam& c : cases) {
    SurfParams params;
    c.spoil(params);
    expect_error([&] { CpuSurfExtractor extractor{params}; }, ErrorCode::kInvalidArgument, c.field);
  }
}

TEST(SurfParamsCheck, ExtremeValidValuesWork) {
  const cv::Mat gray = astronaut();
  SurfParams widest;
  widest.n_octaves = kSurfMaxOctaves;
  widest.n_octave_layers = kSurfMaxOctaveLayers;
  widest.extended = true;
  const Features many = extract_fresh(gray, widest);
  EXPECT_GT(many.keypoints.size(), static_cast<size_t>(kMinKeypoints));
  expect_conventions(many, gray, widest);

  SurfParams everything;
  everything.hessian_threshold = 0;
  const Features all = extract_fresh(gray, everything);
  EXPECT_GT(all.keypoints.size(), extract_fresh(gray).keypoints.size());

  SurfParams one;
  one.max_keypoints = 1;
  EXPECT_EQ(extract_fresh(gray, one).keypoints.size(), 1u);
}

// ---- limits ----------------------------------------------------------------------------------

// `kept` holds the strongest keypoints of `all`, in the canonical order.
void expect_strongest_subset(const Features& all, const Features& kept) {
  float weakest_kept = std::numeric_limits<float>::infinity();
  for (const Keypoint& k : kept.keypoints) {
    weakest_kept = std::min(weakest_kept, k.response);
    const bool found = std::any_of(all.keypoints.begin(), all.keypoints.end(),
                                   [&](const Keypoint& a) { return keypoint_same_feature(a, k); });
    ASSERT_TRUE(found);
  }
  size_t stronger = 0;
  for (const Keypoint& k : all.keypoints)
    stronger += k.response > weakest_kept;
  EXPECT_LE(stronger, kept.keypoints.size());
  EXPECT_TRUE(
      std::is_sorted(kept.keypoints.begin(), kept.keypoints.end(), keypoint_canonical_less));
}

TEST(SurfLimits, OverflowKeepsStrongestAndReportsIt) {
  const cv::Mat gray = astronaut();
  const Features all = extract_fresh(gray);
  ASSERT_GT(all.keypoints.size(), static_cast<size_t>(kMinKeypoints));
  SurfParams params;
  params.max_keypoints = 50;
  const Features capped = extract_fresh(gray, params);
  EXPECT_EQ(capped.keypoints.size(), 50u);
  EXPECT_EQ(capped.descriptor_row_count(), 50);
  EXPECT_TRUE(capped.overflowed);
  EXPECT_EQ(capped.detected_count, static_cast<int>(all.keypoints.size()));
  expect_strongest_subset(all, capped);
}

TEST(SurfLimits, NFeaturesKeepsStrongestWithoutOverflow) {
  const cv::Mat gray = astronaut();
  const Features all = extract_fresh(gray);
  SurfParams params;
  params.nfeatures = 100;
  const Features best = extract_fresh(gray, params);
  EXPECT_EQ(best.keypoints.size(), 100u);
  EXPECT_FALSE(best.overflowed);
  EXPECT_EQ(best.detected_count, 100);
  expect_strongest_subset(all, best);
}

}  // namespace
}  // namespace gpusift::testing
