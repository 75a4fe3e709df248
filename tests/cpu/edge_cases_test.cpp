// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend at the edges of its contract: odd, tiny, padded, huge and invalid frames,
// invalid parameters, the keypoint limits, the descriptor formats, memory reuse and the
// conventions every keypoint follows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <opencv2/features2d.hpp>
#include <string>
#include <vector>

#include "feature_agreement.h"
#include "feature_identity.h"
#include "gpusift/cpu_sift.h"
#include "gpusift/error.h"
#include "gpusift/sift_descriptor.h"
#include "gpusift/sift_scale_space.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

constexpr int kMinKeypoints = 300;

Features extract(CpuSiftExtractor& extractor, const cv::Mat& gray) {
  return extractor.extract(gray.data, gray.step, gray.cols, gray.rows);
}

Features extract_fresh(const cv::Mat& gray, const SiftParams& params = SiftParams{}) {
  CpuSiftExtractor extractor{params};
  return extract(extractor, gray);
}

// Runs `call` and checks that it throws gpusift::Error with `code` and a message containing
// `text`.
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

cv::Mat astronaut() {
  return load_gray("astronaut.png");
}

// ---- frames ----------------------------------------------------------------------------------

TEST(Frames, TinyFramesGiveFewOrNoKeypoints) {
  const cv::Mat source = astronaut();
  ASSERT_FALSE(source.empty());
  const int sizes[][2] = {{1, 1}, {2, 2}, {7, 5}, {5, 7}, {16, 16}};
  for (bool upscale : {true, false}) {
    SiftParams params;
    params.upscale = upscale;
    CpuSiftExtractor extractor{params};
    for (const auto& s : sizes) {
      const cv::Mat tiny = resized(source, s[0], s[1]);
      Features f;
      ASSERT_NO_THROW(f = extract(extractor, tiny)) << s[0] << "x" << s[1];
      EXPECT_LE(f.keypoints.size(), 10u) << s[0] << "x" << s[1];
      EXPECT_EQ(f.descriptor_row_count(), static_cast<int>(f.keypoints.size()));
      if (s[0] < 11 || s[1] < 11) {
        EXPECT_TRUE(f.keypoints.empty()) << "every octave lies within the 5 px border";
      }
    }
  }
}

TEST(Frames, ConstantFrameHasNoKeypoints) {
  const cv::Mat flat(480, 640, CV_8U, cv::Scalar(128));
  const Features f = extract_fresh(flat);
  EXPECT_TRUE(f.keypoints.empty());
  EXPECT_EQ(f.detected_count, 0);
  EXPECT_FALSE(f.overflowed);
  EXPECT_EQ(f.descriptor_row_count(), 0);
}

TEST(Frames, OddSizeAgreesWithOpenCv) {
  const cv::Mat odd = resized(astronaut(), 641, 479);
  std::vector<cv::KeyPoint> reference;
  cv::Mat reference_descriptors;
  cv::SIFT::create()->detectAndCompute(odd, cv::noArray(), reference, reference_descriptors);
  const Features ours = extract_fresh(odd);
  const Agreement a = compare_features(reference, reference_descriptors, to_cv_keypoints(ours),
                                       to_cv_descriptors(ours));
  ASSERT_GT(a.reference_count, kMinKeypoints);
  EXPECT_GE(a.recall, 0.95);
  EXPECT_GE(a.precision, 0.95);
  EXPECT_LE(a.median_descriptor_distance, 0.05);
}

// Padding bytes past the width are the caller's and must not be read into the result.
TEST(Frames, PitchPaddingIsIgnored) {
  const cv::Mat packed = resized(astronaut(), 641, 479);
  ASSERT_TRUE(packed.isContinuous());
  const Features expected = extract_fresh(packed);
  ASSERT_GT(expected.keypoints.size(), kMinKeypoints);

  cv::RNG rng(7);
  for (int padding : {1, 3, 64, 700}) {
    cv::Mat padded(packed.rows, packed.cols + padding, CV_8U);
    rng.fill(padded, cv::RNG::UNIFORM, 0, 256);
    packed.copyTo(padded.colRange(0, packed.cols));
    CpuSiftExtractor extractor{SiftParams{}};
    const Features f = extractor.extract(padded.data, padded.step, packed.cols, packed.rows);
    EXPECT_TRUE(bit_identical(expected, f)) << "pitch " << padded.step;
  }
}

TEST(Frames, LargeFrameWorksWithDefaults) {
  const cv::Mat large = resized(astronaut(), 4096, 4096);
  CpuSiftExtractor extractor{SiftParams{}};
  const Features f = extract(extractor, large);
  std::printf("4096x4096: %zu keypoints, %.1f MiB reserved\n", f.keypoints.size(),
              extractor.reserved_bytes() / 1048576.0);
  EXPECT_GT(f.keypoints.size(), 1000u);
  EXPECT_FALSE(f.overflowed);
  EXPECT_EQ(f.descriptor_row_count(), static_cast<int>(f.keypoints.size()));
  for (const Keypoint& k : f.keypoints) {
    ASSERT_TRUE(k.x >= 0 && k.x <= 4095 && k.y >= 0 && k.y <= 4095);
  }
}

// The buffer is tiny: reading it as the frame it claims to be would crash.
TEST(Frames, HugeFrameIsRefusedBeforeTouchingMemory) {
  const int sizes[][2] = {
      {100000, 10}, {10, 100000}, {20000, 20000}, {kMaxFrameSide + 1, 1}, {1, kMaxFrameSide + 1}};
  std::vector<uint8_t> small(64, 0);
  CpuSiftExtractor extractor{SiftParams{}};
  for (const auto& s : sizes) {
    expect_error([&] { extractor.extract(small.data(), s[0], s[0], s[1]); },
                 ErrorCode::kFrameTooLarge, std::to_string(s[0]) + "x" + std::to_string(s[1]));
    EXPECT_EQ(extractor.reserved_bytes(), 0u) << "nothing may be allocated";
  }
}

TEST(Frames, InvalidFramesAreInvalidArguments) {
  const cv::Mat gray = resized(astronaut(), 64, 48);
  CpuSiftExtractor extractor{SiftParams{}};
  const uint8_t* data = gray.data;
  const size_t pitch = gray.step;
  expect_error([&] { extractor.extract(nullptr, pitch, 64, 48); }, ErrorCode::kInvalidArgument,
               "null");
  for (const auto& s : std::vector<std::pair<int, int>>{{0, 48}, {64, 0}, {-64, 48}, {64, -1}}) {
    expect_error([&] { extractor.extract(data, pitch, s.first, s.second); },
                 ErrorCode::kInvalidArgument, "not positive");
  }
  expect_error([&] { extractor.extract(data, 63, 64, 48); }, ErrorCode::kInvalidArgument, "pitch");
  expect_error([&] { extractor.extract(data, 0, 64, 48); }, ErrorCode::kInvalidArgument, "pitch");
}

TEST(Frames, FailedCallLeavesOutputEmptyAndExtractorUsable) {
  const cv::Mat gray = astronaut();
  CpuSiftExtractor extractor{SiftParams{}};
  Features out;
  extractor.extract(gray.data, gray.step, gray.cols, gray.rows, &out);
  const Features expected = out;
  ASSERT_GT(expected.keypoints.size(), kMinKeypoints);

  EXPECT_THROW(extractor.extract(gray.data, gray.cols - 1, gray.cols, gray.rows, &out), Error);
  EXPECT_TRUE(out.keypoints.empty());
  EXPECT_TRUE(out.float_descriptors.empty());
  EXPECT_EQ(out.detected_count, 0);
  EXPECT_EQ(out.descriptor_row_count(), 0);

  extractor.extract(gray.data, gray.step, gray.cols, gray.rows, &out);
  EXPECT_TRUE(bit_identical(expected, out));
}

// ---- parameters ------------------------------------------------------------------------------

struct BadParam {
  const char* field;
  std::function<void(SiftParams&)> spoil;
};

TEST(Params, InvalidValuesAreRefusedNamingTheField) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<BadParam> cases = {
      {"nfeatures", [](SiftParams& p) { p.nfeatures = -1; }},
      {"n_octave_layers", [](SiftParams& p) { p.n_octave_layers = 0; }},
      {"n_octave_layers", [](SiftParams& p) { p.n_octave_layers = 9; }},
      {"contrast_threshold", [=](SiftParams& p) { p.contrast_threshold = nan; }},
      {"contrast_threshold", [](SiftParams& p) { p.contrast_threshold = -1.f; }},
      {"edge_threshold", [](SiftParams& p) { p.edge_threshold = 0.f; }},
      {"edge_threshold", [=](SiftParams& p) { p.edge_threshold = inf; }},
      {"sigma", [](SiftParams& p) { p.sigma = 0.f; }},
      {"sigma", [](SiftParams& p) { p.sigma = 10.f; }},
      {"sigma", [=](SiftParams& p) { p.sigma = nan; }},
      {"max_keypoints", [](SiftParams& p) { p.max_keypoints = 0; }},
      {"max_octaves", [](SiftParams& p) { p.max_octaves = -1; }},
      {"descriptor", [](SiftParams& p) { p.descriptor = static_cast<DescriptorFormat>(42); }},
  };
  for (const BadParam& bad : cases) {
    SiftParams params;
    bad.spoil(params);
    SCOPED_TRACE(bad.field);
    expect_error([&] { CpuSiftExtractor extractor{params}; }, ErrorCode::kInvalidArgument,
                 bad.field);
  }
}

TEST(Params, ExtremeValidValuesWork) {
  const cv::Mat gray = resized(astronaut(), 160, 120);
  const std::vector<std::function<void(SiftParams&)>> settings = {
      [](SiftParams& p) { p.n_octave_layers = 1; },
      [](SiftParams& p) { p.n_octave_layers = kMaxOctaveLayers; },
      [](SiftParams& p) { p.sigma = 0.5f; },
      [](SiftParams& p) {
        p.sigma = 4.f;
        p.n_octave_layers = 1;
      },
      [](SiftParams& p) { p.contrast_threshold = 0.f; },
      [](SiftParams& p) { p.max_keypoints = 1; },
      [](SiftParams& p) { p.max_octaves = 1; },
      [](SiftParams& p) { p.max_octaves = 1000; },
  };
  for (size_t i = 0; i < settings.size(); ++i) {
    SiftParams params;
    settings[i](params);
    Features f;
    EXPECT_NO_THROW(f = extract_fresh(gray, params)) << "setting " << i;
    EXPECT_FALSE(f.keypoints.empty()) << "setting " << i;
  }
}

// The video mode's octaves count in the extractor: the keypoints of 1280x720 come from octaves
// 0-4 with it and from octaves 0-6 without, those of octaves 0-4 being the same.
TEST(Params, TheExtractorBuildsAtMostMaxOctaves) {
  const cv::Mat gray = resized(astronaut(), 1280, 720);
  SiftParams all = video_sift_params();
  all.max_octaves = 0;
  const Features capped =
      CpuSiftExtractor(video_sift_params()).extract(gray.data, gray.step, gray.cols, gray.rows);
  const Features uncapped =
      CpuSiftExtractor(all).extract(gray.data, gray.step, gray.cols, gray.rows);
  std::vector<Keypoint> below;
  int above = 0;
  for (const Keypoint& k : uncapped.keypoints) {
    if (unpack_octave(k.octave).octave < kVideoMaxOctaves)
      below.push_back(k);
    else
      ++above;
  }
  EXPECT_GT(above, 0);
  ASSERT_EQ(capped.keypoints.size(), below.size());
  EXPECT_EQ(std::memcmp(capped.keypoints.data(), below.data(), sizeof(Keypoint) * below.size()), 0);
}

// ---- keypoint limits -------------------------------------------------------------------------

// `kept` holds exactly the strongest of `all`: each is in `all`, with its descriptor, and none
// left out is stronger than the weakest kept.
void expect_strongest_subset(const Features& all, const Features& kept) {
  ASSERT_FALSE(kept.keypoints.empty());
  float weakest_kept = std::numeric_limits<float>::infinity();
  std::vector<char> is_kept(all.keypoints.size(), 0);
  for (size_t i = 0; i < kept.keypoints.size(); ++i) {
    const Keypoint& k = kept.keypoints[i];
    const auto found =
        std::find_if(all.keypoints.begin(), all.keypoints.end(),
                     [&](const Keypoint& a) { return !std::memcmp(&a, &k, sizeof k); });
    ASSERT_NE(found, all.keypoints.end()) << "kept keypoint " << i << " is not in the full run";
    const size_t row = found - all.keypoints.begin();
    is_kept[row] = 1;
    weakest_kept = std::min(weakest_kept, k.response);
    EXPECT_TRUE(std::equal(all.float_descriptors.begin() + row * kDescriptorLength,
                           all.float_descriptors.begin() + (row + 1) * kDescriptorLength,
                           kept.float_descriptors.begin() + i * kDescriptorLength))
        << "descriptor of kept keypoint " << i;
  }
  for (size_t j = 0; j < all.keypoints.size(); ++j) {
    if (!is_kept[j]) {
      ASSERT_LE(all.keypoints[j].response, weakest_kept) << "left out " << j;
    }
  }
  EXPECT_TRUE(
      std::is_sorted(kept.keypoints.begin(), kept.keypoints.end(), keypoint_canonical_less));
}

TEST(Limits, OverflowKeepsStrongestAndReportsIt) {
  const cv::Mat gray = astronaut();
  const Features all = extract_fresh(gray);
  ASSERT_GT(all.keypoints.size(), kMinKeypoints);
  EXPECT_FALSE(all.overflowed);
  EXPECT_EQ(all.detected_count, static_cast<int>(all.keypoints.size()));

  SiftParams params;
  params.max_keypoints = 50;
  const Features capped = extract_fresh(gray, params);
  EXPECT_EQ(capped.keypoints.size(), 50u);
  EXPECT_EQ(capped.descriptor_row_count(), 50);
  EXPECT_TRUE(capped.overflowed);
  EXPECT_EQ(capped.detected_count, static_cast<int>(all.keypoints.size()));
  expect_strongest_subset(all, capped);
}

// The smallest caps keep exactly what they say, the strongest, with their rows.
TEST(Limits, TinyCapsKeepExactlyThatManyOfTheStrongest) {
  const cv::Mat gray = resized(astronaut(), 320, 240);
  const Features all = extract_fresh(gray);
  ASSERT_GT(all.keypoints.size(), 10u);
  for (const int n : {1, 2, 7}) {
    SCOPED_TRACE(n);
    SiftParams capacity;
    capacity.max_keypoints = n;
    const Features capped = extract_fresh(gray, capacity);
    EXPECT_EQ(capped.keypoints.size(), static_cast<size_t>(n));
    EXPECT_EQ(capped.descriptor_row_count(), n);
    EXPECT_TRUE(capped.overflowed);
    expect_strongest_subset(all, capped);
    SiftParams best;
    best.nfeatures = n;
    const Features kept = extract_fresh(gray, best);
    EXPECT_EQ(kept.keypoints.size(), static_cast<size_t>(n));
    EXPECT_EQ(kept.descriptor_row_count(), n);
    EXPECT_FALSE(kept.overflowed);
    expect_strongest_subset(all, kept);
  }
}

TEST(Limits, NFeaturesKeepsStrongestWithoutOverflow) {
  const cv::Mat gray = astronaut();
  const Features all = extract_fresh(gray);
  ASSERT_GT(all.keypoints.size(), kMinKeypoints);
  SiftParams params;
  params.nfeatures = 100;
  const Features best = extract_fresh(gray, params);
  EXPECT_EQ(best.keypoints.size(), 100u);
  EXPECT_FALSE(best.overflowed);
  EXPECT_EQ(best.detected_count, 100);
  expect_strongest_subset(all, best);
}

TEST(Limits, NFeaturesAgreesWithOpenCv) {
  for (const char* name : {"astronaut.png", "camera.png", "brick.png"}) {
    const cv::Mat gray = load_gray(name);
    std::vector<cv::KeyPoint> reference;
    cv::SIFT::create(200)->detect(gray, reference);
    SiftParams params;
    params.nfeatures = 200;
    const Features ours = extract_fresh(gray, params);
    const Agreement a = compare_features(reference, cv::Mat(), to_cv_keypoints(ours), cv::Mat());
    ASSERT_GE(a.reference_count, 200) << name;
    EXPECT_GE(a.recall, 0.95) << name;
    EXPECT_GE(a.precision, 0.95) << name;
  }
}

// ---- descriptor formats ----------------------------------------------------------------------

TEST(DescriptorFormats, AllDeriveFromTheFloatDescriptor) {
  const cv::Mat gray = astronaut();
  SiftParams params;
  const Features unit = extract_fresh(gray, params);
  ASSERT_GT(unit.keypoints.size(), kMinKeypoints);
  const size_t rows = unit.keypoints.size();
  ASSERT_EQ(unit.descriptor_format, DescriptorFormat::kFloat);
  ASSERT_EQ(unit.descriptor_size, kDescriptorLength);
  ASSERT_EQ(unit.float_descriptors.size(), rows * kDescriptorLength);
  EXPECT_TRUE(unit.byte_descriptors.empty());

  params.descriptor = DescriptorFormat::kUint8;
  const Features bytes = extract_fresh(gray, params);
  ASSERT_EQ(bytes.keypoints.size(), rows);
  EXPECT_EQ(0, std::memcmp(bytes.keypoints.data(), unit.keypoints.data(), rows * sizeof(Keypoint)));
  EXPECT_EQ(bytes.descriptor_format, DescriptorFormat::kUint8);
  EXPECT_EQ(bytes.descriptor_size, kDescriptorLength);
  ASSERT_EQ(bytes.byte_descriptors.size(), rows * kDescriptorLength);
  EXPECT_TRUE(bytes.float_descriptors.empty());
  for (size_t v = 0; v < bytes.byte_descriptors.size(); ++v)
    ASSERT_EQ(bytes.byte_descriptors[v], descriptor_byte(unit.float_descriptors[v])) << v;

  params.descriptor = DescriptorFormat::kRootSift;
  const Features root = extract_fresh(gray, params);
  ASSERT_EQ(root.keypoints.size(), rows);
  EXPECT_EQ(root.descriptor_format, DescriptorFormat::kRootSift);
  ASSERT_EQ(root.float_descriptors.size(), rows * kDescriptorLength);
  for (size_t r = 0; r < rows; ++r) {
    const float* u = unit.float_descriptors.data() + r * kDescriptorLength;
    const float* s = root.float_descriptors.data() + r * kDescriptorLength;
    double l1 = 0, l2 = 0;
    for (int k = 0; k < kDescriptorLength; ++k) {
      l1 += u[k];
      l2 += static_cast<double>(s[k]) * s[k];
    }
    ASSERT_NEAR(l2, 1.0, 1e-5) << "row " << r;
    for (int k = 0; k < kDescriptorLength; ++k)
      ASSERT_NEAR(s[k], std::sqrt(u[k] / l1), 1e-6) << "row " << r << " value " << k;
  }

  params.descriptor = DescriptorFormat::kNone;
  const Features none = extract_fresh(gray, params);
  ASSERT_EQ(none.keypoints.size(), rows);
  EXPECT_EQ(none.descriptor_format, DescriptorFormat::kNone);
  EXPECT_EQ(none.descriptor_size, 0);
  EXPECT_EQ(none.descriptor_row_count(), 0);
  EXPECT_TRUE(none.float_descriptors.empty());
  EXPECT_TRUE(none.byte_descriptors.empty());
}

// ---- state between calls ---------------------------------------------------------------------

TEST(Reuse, ResolutionChangeGivesFreshResults) {
  const cv::Mat source = astronaut();
  const cv::Mat large = resized(source, 640, 480), small = resized(source, 320, 240);
  const Features fresh_large = extract_fresh(large), fresh_small = extract_fresh(small);
  ASSERT_GT(fresh_large.keypoints.size(), kMinKeypoints);
  ASSERT_GT(fresh_small.keypoints.size(), 100u);
  CpuSiftExtractor extractor{SiftParams{}};
  EXPECT_TRUE(bit_identical(fresh_large, extract(extractor, large)));
  EXPECT_TRUE(bit_identical(fresh_small, extract(extractor, small)));
  EXPECT_TRUE(bit_identical(fresh_large, extract(extractor, large)));
}

TEST(Reuse, PyramidMemoryIsKeptForOneSizeAndGrowsWithIt) {
  const cv::Mat source = astronaut();
  const cv::Mat small = resized(source, 320, 240), large = resized(source, 640, 480);
  CpuSiftExtractor extractor{SiftParams{}};
  EXPECT_EQ(extractor.reserved_bytes(), 0u);
  extract(extractor, small);
  const size_t small_bytes = extractor.reserved_bytes();
  // At least the doubled base image and its six Gaussian levels.
  EXPECT_GT(small_bytes, 640u * 480 * 7 * sizeof(float));
  extract(extractor, small);
  EXPECT_EQ(extractor.reserved_bytes(), small_bytes);
  extract(extractor, large);
  const size_t large_bytes = extractor.reserved_bytes();
  EXPECT_GT(large_bytes, 3 * small_bytes);
  extract(extractor, large);
  EXPECT_EQ(extractor.reserved_bytes(), large_bytes);
}

// cpu_sift.h promises that extract() reuses the output's storage.
TEST(Reuse, OutputStorageIsReused) {
  const cv::Mat many = astronaut(), fewer = resized(many, 256, 256);
  CpuSiftExtractor extractor{SiftParams{}};
  Features out;
  extractor.extract(many.data, many.step, many.cols, many.rows, &out);
  const size_t keypoint_capacity = out.keypoints.capacity();
  const size_t descriptor_capacity = out.float_descriptors.capacity();
  extractor.extract(fewer.data, fewer.step, fewer.cols, fewer.rows, &out);
  ASSERT_LT(out.keypoints.size(), keypoint_capacity);
  EXPECT_GE(out.keypoints.capacity(), keypoint_capacity);
  EXPECT_GE(out.float_descriptors.capacity(), descriptor_capacity);
}

// ---- keypoint conventions --------------------------------------------------------------------

void expect_conventions(const Features& f, const cv::Mat& gray, const SiftParams& params) {
  const int scale = params.upscale ? 2 : 1;
  const int first_octave = params.upscale ? -1 : 0;
  const int last_octave =
      octave_count(gray.cols * scale, gray.rows * scale, params.upscale) - 1 + first_octave;
  const float min_response = params.contrast_threshold / params.n_octave_layers;
  for (size_t i = 0; i < f.keypoints.size(); ++i) {
    const Keypoint& k = f.keypoints[i];
    const UnpackedOctave u = unpack_octave(k.octave);
    SCOPED_TRACE("keypoint " + std::to_string(i));
    ASSERT_TRUE(k.angle >= 0.f && k.angle < 360.f) << k.angle;
    ASSERT_GE(u.octave, first_octave);
    ASSERT_LE(u.octave, last_octave);
    ASSERT_GE(u.layer, 1);
    ASSERT_LE(u.layer, params.n_octave_layers);
    ASSERT_GT(k.size, 0.f);
    ASSERT_TRUE(k.x >= 0.f && k.x <= gray.cols - 1.f && k.y >= 0.f && k.y <= gray.rows - 1.f)
        << k.x << ", " << k.y;
    ASSERT_GE(k.response, min_response);
    // size = 2 sigma 2^((layer + sub-layer offset) / layers) 2^octave, offset in (-0.5, 0.5).
    const double layer_position =
        std::log2(k.size * u.scale / (2.0 * params.sigma)) * params.n_octave_layers;
    ASSERT_NEAR(layer_position, u.layer, 0.5 + 1e-4);
    const double sub_layer = ((k.octave >> 16) & 255) / 255.0 - 0.5;
    ASSERT_NEAR(layer_position - u.layer, sub_layer, 0.01);
  }
  EXPECT_TRUE(std::is_sorted(f.keypoints.begin(), f.keypoints.end(), keypoint_canonical_less));
  EXPECT_EQ(std::adjacent_find(f.keypoints.begin(), f.keypoints.end(), keypoint_same_feature),
            f.keypoints.end());
}

TEST(Conventions, EveryKeypointFollowsOpenCvConventions) {
  for (const char* name : {"astronaut.png", "coins.png", "chelsea.png"}) {
    const cv::Mat gray = load_gray(name);
    for (int layers : {1, 3, 5}) {
      SiftParams params;
      params.n_octave_layers = layers;
      const Features f = extract_fresh(gray, params);
      SCOPED_TRACE(std::string(name) + ", " + std::to_string(layers) + " layers");
      ASSERT_GT(f.keypoints.size(), 100u);
      expect_conventions(f, gray, params);
    }
  }
}

TEST(Conventions, WithoutUpscaleOctavesStartAtZeroAndFewerAreFound) {
  for (const char* name : {"astronaut.png", "coins.png"}) {
    const cv::Mat gray = load_gray(name);
    SiftParams params;
    const size_t upscaled_count = extract_fresh(gray, params).keypoints.size();
    params.upscale = false;
    const Features f = extract_fresh(gray, params);
    SCOPED_TRACE(name);
    ASSERT_GT(f.keypoints.size(), 100u);
    EXPECT_LT(f.keypoints.size(), upscaled_count);
    expect_conventions(f, gray, params);
  }
}

}  // namespace
}  // namespace gpusift::testing
