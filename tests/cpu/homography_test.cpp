// SPDX-License-Identifier: LGPL-2.1-or-later
// Matching against ground truth: a real image and its copy rotated by 30 degrees and scaled by
// 0.8 about the centre. Correct matches (reprojection error under 3 px) of the CPU backend must
// be at least 95 % of cv::SIFT's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>

#include "feature_agreement.h"
#include "gpusift/cpu_sift.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

constexpr double kRotationDegrees = 30;
constexpr double kScale = 0.8;
constexpr float kLoweRatio = 0.8f;
constexpr double kMaxReprojectionError = 3;
constexpr int kMinCorrectMatches = 100;
// Just under the shares measured on the four images (0.994-1.003, sigma 1.6 without upscaling
// 0.28-0.45, video mode 0.56-1.13 of OpenCV with upscaling).
constexpr double kMinShareOfOpenCv = 0.98;
constexpr double kVideoModeMinGain = 1.2;
constexpr double kNativeMinShareOfOpenCv = 0.25;
constexpr double kVideoMinShareOfOpenCv = 0.50;

struct FeatureSet {
  std::vector<cv::KeyPoint> keypoints;
  cv::Mat descriptors;
};

FeatureSet opencv_features(const cv::Mat& gray) {
  FeatureSet f;
  cv::SIFT::create()->detectAndCompute(gray, cv::noArray(), f.keypoints, f.descriptors);
  return f;
}

FeatureSet our_features(const cv::Mat& gray, const SiftParams& params = SiftParams{}) {
  CpuSiftExtractor extractor{params};
  const Features features = extractor.extract(gray.data, gray.step, gray.cols, gray.rows);
  return {to_cv_keypoints(features), to_cv_descriptors(features)};
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
    const cv::Vec3d p(from.x, from.y, 1.0);
    const cv::Vec2d expected = transform * p;
    if (std::hypot(expected[0] - to.x, expected[1] - to.y) < kMaxReprojectionError)
      ++correct;
  }
  return correct;
}

cv::Matx23d rotation_and_scale_about_centre(const cv::Mat& image) {
  const cv::Point2f centre((image.cols - 1) * 0.5f, (image.rows - 1) * 0.5f);
  return cv::getRotationMatrix2D(centre, kRotationDegrees, kScale);
}

cv::Mat warped_by(const cv::Mat& image, const cv::Matx23d& transform) {
  cv::Mat warped;
  cv::warpAffine(image, warped, cv::Mat(transform), image.size(), cv::INTER_LINEAR);
  return warped;
}

class RotatedAndScaled : public ::testing::TestWithParam<std::string> {};

TEST_P(RotatedAndScaled, CorrectMatchesComparableToOpenCv) {
  const cv::Mat gray = load_gray(GetParam());
  ASSERT_FALSE(gray.empty());
  const cv::Matx23d transform = rotation_and_scale_about_centre(gray);
  const cv::Mat warped = warped_by(gray, transform);

  const int opencv_correct =
      correct_matches(opencv_features(gray), opencv_features(warped), transform);
  const int our_correct = correct_matches(our_features(gray), our_features(warped), transform);
  std::printf("%-14s correct matches: opencv %4d ours %4d (%.3f)\n", GetParam().c_str(),
              opencv_correct, our_correct, static_cast<double>(our_correct) / opencv_correct);
  RecordProperty("opencv_correct_matches", opencv_correct);
  RecordProperty("our_correct_matches", our_correct);

  EXPECT_GT(opencv_correct, kMinCorrectMatches);
  EXPECT_GT(our_correct, kMinCorrectMatches);
  EXPECT_GE(our_correct, kMinShareOfOpenCv * opencv_correct);
}

// Why gpusiftfilter's video mode lowers sigma: without upscaling, OpenCV's 1.6 loses the finest
// scales, and with them many correct matches (1.25-4x on these four images at their own size;
// README, "Video mode").
TEST_P(RotatedAndScaled, VideoModeFindsMoreCorrectMatchesThanOpenCvSigmaWithoutUpscaling) {
  const cv::Mat gray = load_gray(GetParam());
  ASSERT_FALSE(gray.empty());
  const cv::Matx23d transform = rotation_and_scale_about_centre(gray);
  const cv::Mat warped = warped_by(gray, transform);
  SiftParams native;
  native.upscale = false;
  const SiftParams video = video_sift_params();
  const int native_correct =
      correct_matches(our_features(gray, native), our_features(warped, native), transform);
  const int video_correct =
      correct_matches(our_features(gray, video), our_features(warped, video), transform);
  const int opencv_correct =
      correct_matches(opencv_features(gray), opencv_features(warped), transform);
  std::printf(
      "%-14s correct matches without upscaling: sigma 1.6 %4d, video mode %4d (%.3f of "
      "OpenCV's %d with upscaling)\n",
      GetParam().c_str(), native_correct, video_correct,
      static_cast<double>(video_correct) / opencv_correct, opencv_correct);
  // Absolute floors from OpenCV on the same pair, not only a ratio between two of our modes
  // (which a bug in both would keep).
  EXPECT_GE(native_correct, kNativeMinShareOfOpenCv * opencv_correct);
  EXPECT_GE(video_correct, kVideoMinShareOfOpenCv * opencv_correct);
  EXPECT_GE(video_correct, kVideoModeMinGain * native_correct);
}

INSTANTIATE_TEST_SUITE_P(RealImages, RotatedAndScaled,
                         ::testing::Values("astronaut.png", "chelsea.png", "coffee.png",
                                           "brick.png"),
                         [](const auto& info) {
                           return info.param.substr(0, info.param.find('.'));
                         });

}  // namespace
}  // namespace gpusift::testing
