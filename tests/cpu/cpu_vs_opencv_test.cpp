// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend against cv::SIFT with defaults, keypoint for keypoint, on real images.
#include <gtest/gtest.h>

#include <opencv2/features2d.hpp>

#include "feature_agreement.h"
#include "gpusift/cpu_sift.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

class CpuVersusOpenCv : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuVersusOpenCv, KeypointsAndDescriptorsAgree) {
  const cv::Mat gray = load_gray(GetParam());
  ASSERT_FALSE(gray.empty());

  std::vector<cv::KeyPoint> reference;
  cv::Mat reference_descriptors;
  cv::SIFT::create()->detectAndCompute(gray, cv::noArray(), reference, reference_descriptors);

  CpuSiftExtractor extractor{SiftParams{}};
  const Features ours = extractor.extract(gray.data, gray.step, gray.cols, gray.rows);

  const Agreement a = compare_features(reference, reference_descriptors, to_cv_keypoints(ours),
                                       to_cv_descriptors(ours));
  RecordProperty("recall", std::to_string(a.recall));
  RecordProperty("precision", std::to_string(a.precision));
  RecordProperty("median_descriptor_l2", std::to_string(a.median_descriptor_distance));
  std::printf(
      "%-14s opencv %5d ours %5d recall %.4f precision %.4f descriptor L2 median %.4f p99 %.4f "
      "max %.4f\n",
      GetParam().c_str(), a.reference_count, a.candidate_count, a.recall, a.precision,
      a.median_descriptor_distance, a.p99_descriptor_distance, a.max_descriptor_distance);
  // Just under what the backend achieves on the six images: recall 1.0, precision >= 0.998;
  // descriptor distances from OpenCV's rounding of its rows to bytes (median 0.006, p99 <= 0.008,
  // max <= 0.075).
  ASSERT_GT(a.reference_count, 100);
  EXPECT_GE(a.recall, 0.995);
  EXPECT_GE(a.precision, 0.995);
  EXPECT_LE(a.median_descriptor_distance, 0.008);
  EXPECT_LE(a.p99_descriptor_distance, 0.010);
  EXPECT_LE(a.max_descriptor_distance, 0.10);
}

INSTANTIATE_TEST_SUITE_P(RealImages, CpuVersusOpenCv, ::testing::ValuesIn(parity_image_names()),
                         [](const auto& info) {
                           return info.param.substr(0, info.param.find('.'));
                         });

}  // namespace
}  // namespace gpusift::testing
