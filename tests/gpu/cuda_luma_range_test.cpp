// SPDX-License-Identifier: LGPL-2.1-or-later
// Limited-range frames (FrameView::luma_range) on the CUDA backend: the same features, bit for
// bit, as the CUDA backend on the frame brought to full range beforehand, from host and device
// memory; for SIFT (the bytes path, the float path of RGB and of upscaling, a large frame
// uploaded in bands) and SURF. Against the CPU backend on the same limited frame they agree as
// the backends do on any frame (cuda_parity: recall and precision at least 0.995; SIFT's two
// backends are not bit-identical, a few angles differ in their last bits).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "feature_agreement.h"
#include "feature_identity.h"
#include "gpu_fixture.h"
#include "gpusift/color.h"
#include "gpusift/extractor.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

class CudaLumaRange : public CudaTest {};

// What a camera or decoder gives for the picture: limited-range luma (16 + v * 219 / 255).
cv::Mat limited_range(const cv::Mat& gray) {
  cv::Mat limited;
  gray.convertTo(limited, CV_8U, 219.0 / 255.0, 16.0);
  return limited;
}

cv::Mat at_full_range(const cv::Mat& limited) {
  cv::Mat full(limited.size(), CV_8U);
  for (int y = 0; y < limited.rows; ++y)
    for (int x = 0; x < limited.cols; ++x)
      full.at<uint8_t>(y, x) = full_range_luma(limited.at<uint8_t>(y, x));
  return full;
}

FrameView host_view(const cv::Mat& image, PixelFormat format, LumaRange range) {
  FrameView view{image.data, image.step, image.cols, image.rows, format, MemoryKind::kHost};
  view.luma_range = range;
  return view;
}

Features extract(Backend backend, const FeatureConfig& config, const FrameView& frame) {
  Features out;
  create_extractor(backend, config)->extract(frame, &out);
  return out;
}

struct Case {
  std::string name;
  FeatureConfig config;
  cv::Size size;
};

std::vector<Case> cases() {
  FeatureConfig sift;
  FeatureConfig upscaled;
  upscaled.sift.upscale = true;
  FeatureConfig surf;
  surf.method = Method::kSurf;
  return {{"sift", sift, {640, 480}},
          {"sift upscaled", upscaled, {320, 240}},
          {"sift 4k (banded upload)", sift, {3840, 2160}},
          {"surf", surf, {640, 480}}};
}

TEST_F(CudaLumaRange, Gray8EqualsTheFrameAtFullRangeAndAgreesWithTheCpu) {
  const cv::Mat photo = load_gray("coffee.png");
  ASSERT_FALSE(photo.empty());
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const cv::Mat limited = limited_range(resized(photo, c.size.width, c.size.height));
    const cv::Mat full = at_full_range(limited);
    const Features gpu = extract(Backend::kCuda, c.config,
                                 host_view(limited, PixelFormat::kGray8, LumaRange::kLimited));
    const Features cpu = extract(Backend::kCpu, c.config,
                                 host_view(limited, PixelFormat::kGray8, LumaRange::kLimited));
    const Features gpu_full =
        extract(Backend::kCuda, c.config, host_view(full, PixelFormat::kGray8, LumaRange::kFull));
    EXPECT_GT(gpu.keypoints.size(), 100u);
    EXPECT_TRUE(bit_identical(gpu, gpu_full));
    const Agreement a = compare_features(to_cv_keypoints(cpu), to_cv_descriptors(cpu),
                                         to_cv_keypoints(gpu), to_cv_descriptors(gpu));
    EXPECT_GE(a.recall, 0.995);
    EXPECT_GE(a.precision, 0.995);

    // The same limited frame from device memory.
    void* device = nullptr;
    size_t pitch = 0;
    ASSERT_EQ(cudaMallocPitch(&device, &pitch, limited.cols, limited.rows), cudaSuccess);
    ASSERT_EQ(cudaMemcpy2D(device, pitch, limited.data, limited.step, limited.cols, limited.rows,
                           cudaMemcpyHostToDevice),
              cudaSuccess);
    FrameView on_device{
        device, pitch, limited.cols, limited.rows, PixelFormat::kGray8, MemoryKind::kDevice};
    on_device.luma_range = LumaRange::kLimited;
    EXPECT_TRUE(bit_identical(extract(Backend::kCuda, c.config, on_device), gpu));
    cudaFree(device);
  }
}

// RGB whose caps say limited range: gray first (OpenCV's weights), then brought to full range.
TEST_F(CudaLumaRange, LimitedRgbEqualsItsGrayAtFullRange) {
  const cv::Mat bgr = load_bgr("coffee.png");
  ASSERT_FALSE(bgr.empty());
  cv::Mat limited;
  bgr.convertTo(limited, CV_8UC3, 219.0 / 255.0, 16.0);
  cv::Mat bgrx;
  cv::cvtColor(limited, bgrx, cv::COLOR_BGR2BGRA);
  for (const Case& c : cases()) {
    if (c.size.width > 1000)
      continue;
    SCOPED_TRACE(c.name);
    // The gray the backends should see: OpenCV's gray of the limited RGB, then full range.
    cv::Mat gray(limited.size(), CV_8U);
    for (int y = 0; y < limited.rows; ++y)
      for (int x = 0; x < limited.cols; ++x) {
        const cv::Vec3b p = limited.at<cv::Vec3b>(y, x);
        gray.at<uint8_t>(y, x) = full_range_luma(rgb_to_gray8(p[2], p[1], p[0]));
      }
    const Features expected =
        extract(Backend::kCuda, c.config, host_view(gray, PixelFormat::kGray8, LumaRange::kFull));
    for (const auto& [image, format] :
         {std::pair{limited, PixelFormat::kBgr8}, std::pair{bgrx, PixelFormat::kBgrx8}}) {
      const FrameView view = host_view(image, format, LumaRange::kLimited);
      const Features gpu = extract(Backend::kCuda, c.config, view);
      EXPECT_GT(gpu.keypoints.size(), 100u);
      EXPECT_TRUE(bit_identical(gpu, expected));
    }
  }
}

// One extractor through full, limited and full frames again: the captured graph of a banded
// upload reads the bytes in the range of the frame at hand.
TEST_F(CudaLumaRange, RangeChangesBetweenFramesOfOneExtractor) {
  const cv::Mat limited = limited_range(resized(load_gray("coffee.png"), 3840, 2160));
  const cv::Mat full = at_full_range(limited);
  FeatureConfig config;
  const auto gpu = create_extractor(Backend::kCuda, config);
  const Features expected =
      extract(Backend::kCuda, config, host_view(full, PixelFormat::kGray8, LumaRange::kFull));
  const Features raw =
      extract(Backend::kCuda, config, host_view(limited, PixelFormat::kGray8, LumaRange::kFull));
  ASSERT_FALSE(bit_identical(expected, raw));  // the range matters to this frame
  for (const LumaRange range :
       {LumaRange::kFull, LumaRange::kLimited, LumaRange::kFull, LumaRange::kLimited}) {
    Features out;
    gpu->extract(host_view(limited, PixelFormat::kGray8, range), &out);
    EXPECT_TRUE(bit_identical(out, range == LumaRange::kLimited ? expected : raw));
  }
}

}  // namespace
}  // namespace gpusift::testing
