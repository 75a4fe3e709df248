// SPDX-License-Identifier: LGPL-2.1-or-later
// Unit tests of the host/device math headers that the CPU loop and the CUDA kernels share,
// checked against OpenCV's own functions where OpenCV has one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <random>
#include <vector>

#include "gpusift/keypoint.h"
#include "gpusift/sift_descriptor.h"
#include "gpusift/sift_extrema.h"
#include "gpusift/sift_orientation.h"
#include "gpusift/sift_params.h"
#include "gpusift/sift_scale_space.h"

namespace gpusift::testing {
namespace {

// The blur sigmas of SIFT with defaults, plus values where 8 sigma + 1 lands on .5 (rounding to
// even decides the kernel size) or on an even integer (the | 1 decides it).
const std::vector<float> kBlurSigmas = {0.5f,   0.6875f, 0.8125f, 1.f,     1.125f,  1.2263f,
                                        1.249f, 1.5199f, 1.545f,  1.9466f, 2.4525f, 3.09f};

std::vector<float> taps_for(float sigma) {
  std::vector<float> taps(2 * gaussian_radius(sigma) + 1);
  gaussian_taps(sigma, gaussian_radius(sigma), taps.data());
  return taps;
}

TEST(GaussianTaps, SumToOneAndAreSymmetric) {
  for (float sigma : kBlurSigmas) {
    const std::vector<float> taps = taps_for(sigma);
    ASSERT_GE(taps.size(), 5u) << "sigma " << sigma;
    EXPECT_NEAR(std::accumulate(taps.begin(), taps.end(), 0.0), 1.0, 1e-6) << "sigma " << sigma;
    for (size_t i = 0; i < taps.size() / 2; ++i)
      EXPECT_EQ(taps[i], taps[taps.size() - 1 - i]) << "sigma " << sigma << " tap " << i;
    EXPECT_TRUE(std::is_sorted(taps.begin(), taps.begin() + taps.size() / 2 + 1));
  }
}

TEST(GaussianTaps, RadiusFollowsOpenCvRuleForFloatImages) {
  for (float sigma : kBlurSigmas) {
    const int ksize = cvRound(static_cast<double>(sigma) * 8 + 1) | 1;
    EXPECT_EQ(2 * gaussian_radius(sigma) + 1, ksize) << "sigma " << sigma;
  }
  EXPECT_EQ(gaussian_radius(0.6875f), 3);  // 6.5 rounds to 6, then | 1
  EXPECT_EQ(gaussian_radius(0.8125f), 4);  // 7.5 rounds to 8, then | 1
  EXPECT_EQ(gaussian_radius(1.125f), 5);   // 10 | 1
}

TEST(GaussianTaps, MatchGetGaussianKernel) {
  for (float sigma : kBlurSigmas) {
    const std::vector<float> taps = taps_for(sigma);
    const cv::Mat reference = cv::getGaussianKernel(static_cast<int>(taps.size()), sigma, CV_32F);
    for (size_t i = 0; i < taps.size(); ++i)
      EXPECT_NEAR(taps[i], reference.at<float>(static_cast<int>(i)), 1e-6)
          << "sigma " << sigma << " tap " << i;
  }
}

// cv::GaussianBlur with Size() picks its own kernel size; the response to a unit impulse shows
// which size and taps it picked.
TEST(GaussianTaps, MatchGaussianBlurImpulseResponse) {
  for (float sigma : kBlurSigmas) {
    const std::vector<float> taps = taps_for(sigma);
    const int radius = static_cast<int>(taps.size()) / 2;
    const int side = 2 * radius + 21, centre = side / 2;
    cv::Mat impulse = cv::Mat::zeros(side, side, CV_32F);
    impulse.at<float>(centre, centre) = 1.f;
    cv::Mat response;
    cv::GaussianBlur(impulse, response, cv::Size(), sigma, sigma, cv::BORDER_REFLECT_101);
    for (int r = 0; r < side; ++r) {
      for (int c = 0; c < side; ++c) {
        const int dr = r - centre + radius, dc = c - centre + radius;
        const bool inside = dr >= 0 && dr <= 2 * radius && dc >= 0 && dc <= 2 * radius;
        const float expected = inside ? taps[dr] * taps[dc] : 0.f;
        ASSERT_NEAR(response.at<float>(r, c), expected, 1e-6)
            << "sigma " << sigma << " at offset " << r - centre << "," << c - centre;
      }
    }
  }
}

TEST(BlurSigmas, LevelSigmasOfDefaults) {
  const float expected[] = {1.2263f, 1.5450f, 1.9466f, 2.4525f, 3.0900f};
  for (int level = 1; level <= 5; ++level)
    EXPECT_NEAR(level_blur_sigma(1.6f, 3, level), expected[level - 1], 1e-3) << "level " << level;
}

TEST(BlurSigmas, LevelSigmasTakeEachLevelToItsTotalBlur) {
  for (int layers : {1, 2, 3, 5, 8}) {
    const double k = std::pow(2.0, 1.0 / layers);
    double total = 1.6;
    for (int level = 1; level < gaussian_levels(layers); ++level) {
      const double step = level_blur_sigma(1.6f, layers, level);
      total = std::sqrt(total * total + step * step);
      EXPECT_NEAR(total, 1.6 * std::pow(k, level), 1e-4) << layers << " layers, level " << level;
    }
  }
}

TEST(BlurSigmas, InitialBlurAssumesHalfPixelCameraBlur) {
  EXPECT_NEAR(initial_blur_sigma(1.6f, true), std::sqrt(1.6 * 1.6 - 1.0), 1e-6);
  EXPECT_NEAR(initial_blur_sigma(1.6f, false), std::sqrt(1.6 * 1.6 - 0.25), 1e-6);
  // Below the assumed blur OpenCV floors the variance at 0.01.
  EXPECT_NEAR(initial_blur_sigma(0.9f, true), 0.1f, 1e-6);
  EXPECT_NEAR(initial_blur_sigma(0.5f, false), 0.1f, 1e-6);
}

int opencv_octave_count(int width, int height, bool upscale) {
  const int scale = upscale ? 2 : 1;
  const int smallest = std::min(width, height) * scale;
  return std::max(
      0, cvRound(std::log(static_cast<double>(smallest)) / std::log(2.) - 2) + (upscale ? 1 : 0));
}

TEST(OctaveCount, MatchesOpenCvFormula) {
  const int sizes[][2] = {{1, 1},     {2, 2},       {3, 3},       {7, 5},
                          {16, 16},   {23, 1000},   {451, 300},   {512, 512},
                          {640, 480}, {1920, 1080}, {4096, 4096}, {16384, 2}};
  for (const auto& s : sizes) {
    for (bool upscale : {true, false}) {
      const int scale = upscale ? 2 : 1;
      EXPECT_EQ(octave_count(s[0] * scale, s[1] * scale, upscale),
                opencv_octave_count(s[0], s[1], upscale))
          << s[0] << "x" << s[1] << (upscale ? " upscaled" : "");
    }
  }
  EXPECT_EQ(octave_count(2, 2, true), 0);  // a 1x1 frame
  EXPECT_EQ(octave_count(1024, 1024, true), 9);
  EXPECT_EQ(octave_count(512, 512, false), 7);
}

bool has_interior(int width, int height) {
  return width > 2 * kSiftImageBorder && height > 2 * kSiftImageBorder;
}

TEST(OctaveCount, BuildsOnlyOctavesWithAnInterior) {
  const int sizes[][2] = {{1, 1},     {7, 5},       {11, 11},     {12, 11},     {451, 300},
                          {640, 480}, {1920, 1080}, {2560, 1920}, {4096, 4096}, {16384, 22}};
  for (const auto& s : sizes) {
    for (bool upscale : {true, false}) {
      const int scale = upscale ? 2 : 1;
      const int w = s[0] * scale, h = s[1] * scale;
      const int all = octave_count(w, h, upscale);
      const int built = octaves_with_interior(w, h, upscale);
      SCOPED_TRACE(std::to_string(s[0]) + "x" + std::to_string(s[1]) + (upscale ? " up" : ""));
      ASSERT_LE(built, all);
      for (int o = 0; o < built; ++o)
        EXPECT_TRUE(has_interior(w >> o, h >> o)) << "octave " << o;
      for (int o = built; o < all; ++o)
        EXPECT_FALSE(has_interior(w >> o, h >> o)) << "octave " << o;
    }
  }
  EXPECT_EQ(octaves_with_interior(1920, 1080, false), 7);  // 8 by OpenCV's count; 15x8 is empty
  EXPECT_EQ(octaves_with_interior(2, 2, true), 0);
}

// max_octaves caps the octaves built; 0 leaves OpenCV's count.
TEST(OctaveCount, MaxOctavesCapsTheOctavesBuilt) {
  EXPECT_EQ(built_octaves(1280, 720, false, 0), 7);
  EXPECT_EQ(built_octaves(1280, 720, false, kVideoMaxOctaves), 5);
  EXPECT_EQ(built_octaves(1280, 720, false, 1), 1);
  EXPECT_EQ(built_octaves(1280, 720, false, 99), 7);
  EXPECT_EQ(built_octaves(2560, 1440, true, 0), 8);
  EXPECT_EQ(built_octaves(640, 480, false, kVideoMaxOctaves), 5);
  EXPECT_EQ(built_octaves(2, 2, true, 5), 0);
}

TEST(Reflect101, MatchesBorderInterpolate) {
  for (int n : {1, 2, 3, 4, 7, 16, 33}) {
    for (int i = -3 * n - 2; i <= 4 * n + 2; ++i)
      ASSERT_EQ(reflect101(i, n), cv::borderInterpolate(i, n, cv::BORDER_REFLECT_101))
          << "i " << i << " n " << n;
  }
}

TEST(SolveHessian, MatchesCvSolveOnRandomSymmetricSystems) {
  cv::RNG rng(20240611);
  for (int trial = 0; trial < 200; ++trial) {
    cv::Matx33f m;
    for (int k = 0; k < 9; ++k)
      m.val[k] = rng.uniform(-1.f, 1.f);
    // M Mt + 1.5 I is symmetric with eigenvalues >= 1.5: well conditioned.
    const cv::Matx33f h = m * m.t() + cv::Matx33f::eye() * 1.5f;
    const cv::Vec3f b(rng.uniform(-1.f, 1.f), rng.uniform(-1.f, 1.f), rng.uniform(-1.f, 1.f));
    ScaleSpaceGradient g{};
    g.dxx = h(0, 0);
    g.dxy = h(0, 1);
    g.dxs = h(0, 2);
    g.dyy = h(1, 1);
    g.dys = h(1, 2);
    g.dss = h(2, 2);
    g.dx = b[0];
    g.dy = b[1];
    g.ds = b[2];
    float x_col = 0, x_row = 0, x_layer = 0;
    ASSERT_TRUE(solve_hessian(g, &x_col, &x_row, &x_layer));
    cv::Mat expected;
    ASSERT_TRUE(cv::solve(cv::Mat(h), cv::Mat(b), expected, cv::DECOMP_LU));
    EXPECT_NEAR(x_col, expected.at<float>(0), 1e-5) << "trial " << trial;
    EXPECT_NEAR(x_row, expected.at<float>(1), 1e-5) << "trial " << trial;
    EXPECT_NEAR(x_layer, expected.at<float>(2), 1e-5) << "trial " << trial;
  }
}

TEST(SolveHessian, RefusesSingularMatrix) {
  ScaleSpaceGradient g{};
  g.dxx = 1.f;
  g.dxy = 1.f;
  g.dyy = 1.f;
  g.dss = 2.f;
  g.dx = 1.f;
  float x_col = 7, x_row = 7, x_layer = 7;
  EXPECT_FALSE(solve_hessian(g, &x_col, &x_row, &x_layer));
}

// Three 5x5 DoG layers filled with `background`; the candidate sits at layer 1, (2, 2).
struct DogStack {
  static constexpr int kSide = 5;
  std::vector<float> values;
  explicit DogStack(float background) : values(3 * kSide * kSide, background) {}
  float& at(int layer, int row, int col) { return values[(layer * kSide + row) * kSide + col]; }
  LayerStackView view() const {
    return {values.data(), kSide, kSide, kSide, static_cast<size_t>(kSide * kSide)};
  }
  bool centre_is_extremum(float threshold) const {
    return is_scale_space_extremum(view(), 1, 2, 2, threshold);
  }
};

TEST(ScaleSpaceExtremum, FindsMaximumAboveThreshold) {
  DogStack dog(1.f);
  dog.at(1, 2, 2) = 10.f;
  EXPECT_TRUE(dog.centre_is_extremum(5.f));
  EXPECT_FALSE(dog.centre_is_extremum(10.f)) << "the threshold is strict";
}

TEST(ScaleSpaceExtremum, FindsMinimum) {
  DogStack dog(-1.f);
  dog.at(1, 2, 2) = -10.f;
  EXPECT_TRUE(dog.centre_is_extremum(5.f));
}

TEST(ScaleSpaceExtremum, EqualNeighbourStillCountsAsOpenCvUsesGreaterOrEqual) {
  for (int layer : {0, 1, 2}) {
    DogStack dog(1.f);
    dog.at(1, 2, 2) = 10.f;
    dog.at(layer, layer == 1 ? 1 : 2, 3) = 10.f;
    EXPECT_TRUE(dog.centre_is_extremum(5.f)) << "equal neighbour in layer " << layer;
  }
  DogStack plateau(-10.f);
  EXPECT_TRUE(plateau.centre_is_extremum(5.f));
}

TEST(ScaleSpaceExtremum, RejectsPointWithLargerNeighbourInAnyLayer) {
  for (int layer : {0, 1, 2}) {
    for (int dr : {-1, 0, 1}) {
      for (int dc : {-1, 0, 1}) {
        if (layer == 1 && dr == 0 && dc == 0)
          continue;
        DogStack dog(1.f);
        dog.at(1, 2, 2) = 10.f;
        dog.at(layer, 2 + dr, 2 + dc) = 10.5f;
        EXPECT_FALSE(dog.centre_is_extremum(5.f)) << layer << " " << dr << " " << dc;
      }
    }
  }
}

TEST(ScaleSpaceExtremum, RejectsPositiveValueThatIsTheSmallest) {
  DogStack dog(20.f);
  dog.at(1, 2, 2) = 10.f;
  EXPECT_FALSE(dog.centre_is_extremum(5.f));
}

// OpenCV's test, value by value: no neighbour above a positive value, none below a negative one.
bool opencv_extremum(const LayerStackView& dog, int layer, int row, int col, float threshold) {
  const float value = dog.at(layer, row, col);
  if (!(std::fabs(value) > threshold))
    return false;
  for (int dl = -1; dl <= 1; ++dl) {
    for (int dr = -1; dr <= 1; ++dr) {
      for (int dc = -1; dc <= 1; ++dc) {
        const float neighbour = dog.at(layer + dl, row + dr, col + dc);
        if (value > 0 ? neighbour > value : neighbour < value)
          return false;
      }
    }
  }
  return true;
}

TEST(ScaleSpaceExtremum, DecidesAsOpenCvAtEveryPixelOfTiedStacks) {
  // Few distinct values, so that ties and plateaus are everywhere; both signs and the threshold.
  constexpr int kWidth = 40, kHeight = 30, kLayers = 5;
  std::vector<float> values(kWidth * kHeight * kLayers);
  std::mt19937 random(12);
  std::uniform_int_distribution<int> level(-4, 4);
  for (float& v : values)
    v = 2.5f * level(random);
  const LayerStackView dog{values.data(), kWidth, kHeight, kWidth,
                           static_cast<size_t>(kWidth * kHeight)};
  int maxima = 0, minima = 0;
  for (const float threshold : {0.f, 1.f, 5.f}) {
    for (int layer = 1; layer + 1 < kLayers; ++layer) {
      for (int r = 1; r + 1 < kHeight; ++r) {
        for (int c = 1; c + 1 < kWidth; ++c) {
          const bool expected = opencv_extremum(dog, layer, r, c, threshold);
          EXPECT_EQ(is_scale_space_extremum(dog, layer, r, c, threshold), expected)
              << "threshold " << threshold << " layer " << layer << " at " << r << ", " << c;
          maxima += expected && dog.at(layer, r, c) > 0;
          minima += expected && dog.at(layer, r, c) < 0;
        }
      }
    }
  }
  EXPECT_GT(maxima, 20);
  EXPECT_GT(minima, 20);
}

// The OpenCV angle of a histogram peak at bin j with the given neighbours.
float expected_peak_angle(int j, float left, float peak, float right) {
  float bin = j + 0.5f * (left - right) / (left - 2.f * peak + right);
  bin = bin < 0 ? kOrientationBins + bin : (bin >= kOrientationBins ? bin - kOrientationBins : bin);
  return 360.f - 360.f / kOrientationBins * bin;
}

struct PeakResult {
  int count;
  float angles[kOrientationBins];
};

PeakResult peaks_of(const std::vector<float>& hist) {
  PeakResult result{};
  const float maximum = *std::max_element(hist.begin(), hist.end());
  result.count = orientation_peaks(hist.data(), maximum, result.angles);
  return result;
}

TEST(OrientationPeaks, SinglePeakIsInterpolatedByParabola) {
  std::vector<float> hist(kOrientationBins, 0.1f);
  hist[9] = 0.5f;
  hist[10] = 1.f;
  hist[11] = 0.25f;
  const PeakResult p = peaks_of(hist);
  ASSERT_EQ(p.count, 1);
  EXPECT_FLOAT_EQ(p.angles[0], expected_peak_angle(10, 0.5f, 1.f, 0.25f));
  EXPECT_NEAR(p.angles[0], 261.f, 1e-3);  // bin 9.9
}

TEST(OrientationPeaks, SecondPeakAboveEightyPercentCounts) {
  std::vector<float> hist(kOrientationBins, 0.1f);
  hist[5] = 1.f;
  hist[20] = 0.9f;
  const PeakResult p = peaks_of(hist);
  ASSERT_EQ(p.count, 2);
  EXPECT_NEAR(p.angles[0], 310.f, 1e-3);
  EXPECT_NEAR(p.angles[1], 160.f, 1e-3);
}

TEST(OrientationPeaks, SecondPeakBelowEightyPercentDoesNot) {
  std::vector<float> hist(kOrientationBins, 0.1f);
  hist[5] = 1.f;
  hist[20] = 0.79f;
  EXPECT_EQ(peaks_of(hist).count, 1);
}

TEST(OrientationPeaks, FlatTopIsNoPeak) {
  std::vector<float> hist(kOrientationBins, 0.1f);
  hist[5] = hist[6] = 1.f;
  EXPECT_EQ(peaks_of(hist).count, 0);
}

TEST(OrientationPeaks, AnglesWrapIntoZeroTo360) {
  struct Case {
    float left, right;
  };
  for (const Case c : {Case{0.5f, 0.2f}, Case{0.2f, 0.5f}, Case{0.4f, 0.4f}}) {
    std::vector<float> hist(kOrientationBins, 0.1f);
    hist[kOrientationBins - 1] = c.left;
    hist[0] = 1.f;
    hist[1] = c.right;
    const PeakResult p = peaks_of(hist);
    ASSERT_EQ(p.count, 1);
    EXPECT_GE(p.angles[0], 0.f);
    EXPECT_LT(p.angles[0], 360.f);
    const float expected = c.left == c.right ? 0.f : expected_peak_angle(0, c.left, 1.f, c.right);
    EXPECT_FLOAT_EQ(p.angles[0], expected) << "left " << c.left << " right " << c.right;
  }
  std::vector<float> hist(kOrientationBins, 0.1f);
  hist[34] = 0.2f;
  hist[35] = 1.f;
  hist[0] = 0.9f;  // interpolated bin ~35.4: 360 - 354 = ~6 degrees
  const PeakResult p = peaks_of(hist);
  ASSERT_EQ(p.count, 1);
  EXPECT_NEAR(p.angles[0], expected_peak_angle(35, 0.2f, 1.f, 0.9f), 1e-4);
  EXPECT_GT(p.angles[0], 0.f);
  EXPECT_LT(p.angles[0], 10.f);
}

TEST(SmoothOrientationHistogram, DeltaSpreadsAsBinomialAndWraps) {
  for (int at : {0, 17, 35}) {
    std::vector<float> raw(kOrientationBins, 0.f), smoothed(kOrientationBins, -1.f);
    raw[at] = 16.f;
    const float maximum = smooth_orientation_histogram(raw.data(), smoothed.data());
    EXPECT_FLOAT_EQ(maximum, 6.f);
    for (int i = 0; i < kOrientationBins; ++i) {
      const int offset = ((i - at) % kOrientationBins + kOrientationBins + 2) % kOrientationBins;
      const float expected = offset < 5 ? std::vector<float>{1, 4, 6, 4, 1}[offset] : 0.f;
      EXPECT_FLOAT_EQ(smoothed[i], expected) << "delta at " << at << ", bin " << i;
    }
  }
}

float l2_norm(const float* v, int n) {
  double sum = 0;
  for (int i = 0; i < n; ++i)
    sum += static_cast<double>(v[i]) * v[i];
  return static_cast<float>(std::sqrt(sum));
}

TEST(NormalizeDescriptor, ClampsAtFifthOfNormThenHasUnitNorm) {
  float d[kDescriptorLength];
  std::fill(d, d + kDescriptorLength, 1.f);
  d[7] = 10.f;
  const float clamp = 0.2f * std::sqrt(127.f + 100.f);
  normalize_descriptor(d);
  EXPECT_NEAR(l2_norm(d, kDescriptorLength), 1.f, 1e-6);
  EXPECT_NEAR(d[7] / d[0], clamp, 1e-4) << "the large value is clamped, the others kept";
  for (int k = 0; k < kDescriptorLength; ++k) {
    if (k != 7) {
      EXPECT_EQ(d[k], d[0]);
    }
  }
}

TEST(NormalizeDescriptor, KeepsUnclampedShape) {
  float d[kDescriptorLength];
  for (int k = 0; k < kDescriptorLength; ++k)
    d[k] = static_cast<float>(k % 5 + 1);
  float original[kDescriptorLength];
  std::copy(d, d + kDescriptorLength, original);
  normalize_descriptor(d);
  const float norm = l2_norm(original, kDescriptorLength);
  ASSERT_LT(5.f, 0.2f * norm) << "no value should reach the clamp in this case";
  for (int k = 0; k < kDescriptorLength; ++k)
    EXPECT_NEAR(d[k], original[k] / norm, 1e-6);
}

TEST(NormalizeDescriptor, ZeroStaysZero) {
  float d[kDescriptorLength] = {};
  normalize_descriptor(d);
  for (float v : d)
    EXPECT_EQ(v, 0.f);
}

TEST(DescriptorByte, RoundsHalfToEvenAndSaturatesAsOpenCv) {
  EXPECT_EQ(descriptor_byte(0.f), 0);
  EXPECT_EQ(descriptor_byte(0.5f / 512), 0);
  EXPECT_EQ(descriptor_byte(1.5f / 512), 2);
  EXPECT_EQ(descriptor_byte(2.5f / 512), 2);
  EXPECT_EQ(descriptor_byte(0.2f), 102);
  EXPECT_EQ(descriptor_byte(0.6f), 255);
  EXPECT_EQ(descriptor_byte(-0.1f), 0);
  for (int i = -100; i <= 700; ++i) {
    const float unit = i / 1024.f;
    ASSERT_EQ(descriptor_byte(unit), cv::saturate_cast<uchar>(unit * 512.f)) << unit;
  }
}

TEST(RootSift, HasUnitNormAndIsRootOfL1Normalised) {
  float d[kDescriptorLength];
  for (int k = 0; k < kDescriptorLength; ++k)
    d[k] = static_cast<float>((k * 37) % 11);
  normalize_descriptor(d);
  float unit[kDescriptorLength];
  std::copy(d, d + kDescriptorLength, unit);
  const double l1 = std::accumulate(unit, unit + kDescriptorLength, 0.0);
  descriptor_to_rootsift(d);
  EXPECT_NEAR(l2_norm(d, kDescriptorLength), 1.f, 1e-5);
  for (int k = 0; k < kDescriptorLength; ++k)
    EXPECT_NEAR(d[k], std::sqrt(unit[k] / l1), 1e-6);
}

TEST(UnpackOctave, UpscaledOctaveLayerTwo) {
  const int32_t packed = (-1 & 255) | (2 << 8) | (128 << 16);
  const UnpackedOctave u = unpack_octave(packed);
  EXPECT_EQ(u.octave, -1);
  EXPECT_EQ(u.layer, 2);
  EXPECT_EQ(u.scale, 2.f);
}

TEST(UnpackOctave, PositiveOctave) {
  const UnpackedOctave u = unpack_octave(3 | (1 << 8) | (255 << 16));
  EXPECT_EQ(u.octave, 3);
  EXPECT_EQ(u.layer, 1);
  EXPECT_EQ(u.scale, 0.125f);
}

}  // namespace
}  // namespace gpusift::testing
