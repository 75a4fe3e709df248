// SPDX-License-Identifier: LGPL-2.1-or-later
// The shared RGB-to-gray conversion is OpenCV's, bit for bit.
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>

#include "gpusift/color.h"

namespace gpusift::testing {
namespace {

TEST(Color, RgbToGrayEqualsOpenCvCvtColor) {
  cv::Mat bgr(257, 263, CV_8UC3);
  cv::randu(bgr, 0, 256);
  // Every channel value at least once, in every position.
  for (int v = 0; v < 256; ++v)
    bgr.at<cv::Vec3b>(0, v) = cv::Vec3b(v, 255 - v, v / 2);
  cv::Mat gray;
  cv::cvtColor(bgr, gray, cv::COLOR_BGR2GRAY);
  int differences = 0;
  for (int y = 0; y < bgr.rows; ++y)
    for (int x = 0; x < bgr.cols; ++x) {
      const cv::Vec3b p = bgr.at<cv::Vec3b>(y, x);
      differences += rgb_to_gray8(p[2], p[1], p[0]) != gray.at<uint8_t>(y, x);
    }
  EXPECT_EQ(differences, 0);
}

}  // namespace
}  // namespace gpusift::testing
