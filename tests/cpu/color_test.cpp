// SPDX-License-Identifier: LGPL-2.1-or-later
// The shared RGB-to-gray conversion is OpenCV's, bit for bit; limited-range values are brought
// to full range by the exact formula, and the CPU backend's gray frame applies it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>
#include <vector>

#include "gpusift/color.h"
#include "gpusift/host_gray.h"

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

// (y - 16) * 255 / 219 rounded to nearest (the integer form has no ties), clamped to 0..255.
TEST(Color, FullRangeLumaIsTheExactRoundedScale) {
  for (int y = 0; y < 256; ++y) {
    const double exact = std::lround((y - 16) * 255.0 / 219.0);
    EXPECT_EQ(full_range_luma(y), static_cast<uint8_t>(std::clamp(exact, 0.0, 255.0))) << y;
  }
  EXPECT_EQ(full_range_luma(16), 0);
  EXPECT_EQ(full_range_luma(235), 255);
  EXPECT_EQ(luma_at_full_range(100, LumaRange::kFull), 100);
  EXPECT_EQ(luma_at_full_range(100, LumaRange::kLimited), full_range_luma(100));
}

// The CPU backend's gray frame: GRAY8 in full range is read in place, limited range and RGB are
// converted into the scratch, RGB in limited range with its gray value brought to full range.
TEST(Color, HostGrayAppliesTheLumaRange) {
  cv::Mat gray(31, 17, CV_8U);
  cv::randu(gray, 0, 256);
  cv::Mat bgr(31, 17, CV_8UC3);
  cv::randu(bgr, 0, 256);
  std::vector<uint8_t> scratch;
  const FrameView full{gray.data, gray.step,           gray.cols,
                       gray.rows, PixelFormat::kGray8, MemoryKind::kHost};
  EXPECT_EQ(host_gray_pixels(full, &scratch).pixels, gray.data);
  FrameView limited = full;
  limited.luma_range = LumaRange::kLimited;
  const HostGray expanded = host_gray_pixels(limited, &scratch);
  FrameView limited_bgr{bgr.data, bgr.step,           bgr.cols,
                        bgr.rows, PixelFormat::kBgr8, MemoryKind::kHost};
  limited_bgr.luma_range = LumaRange::kLimited;
  std::vector<uint8_t> bgr_scratch;
  const HostGray expanded_bgr = host_gray_pixels(limited_bgr, &bgr_scratch);
  int differences = 0;
  for (int y = 0; y < gray.rows; ++y)
    for (int x = 0; x < gray.cols; ++x) {
      const cv::Vec3b p = bgr.at<cv::Vec3b>(y, x);
      differences +=
          expanded.pixels[y * expanded.pitch_bytes + x] != full_range_luma(gray.at<uint8_t>(y, x));
      differences += expanded_bgr.pixels[y * expanded_bgr.pitch_bytes + x] !=
                     full_range_luma(rgb_to_gray8(p[2], p[1], p[0]));
    }
  EXPECT_EQ(differences, 0);
}

}  // namespace
}  // namespace gpusift::testing
