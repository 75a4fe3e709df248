// SPDX-License-Identifier: LGPL-2.1-or-later
// The frames-in-flight calls of gpusift::Extractor on the CPU backend, which holds one frame:
// submit then collect gives what extract() gives, and misuse is refused without losing the frame.
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "feature_identity.h"
#include "gpusift/error.h"
#include "gpusift/extractor.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

FrameView gray_view(const cv::Mat& gray) {
  return FrameView{gray.data, gray.step,           gray.cols,
                   gray.rows, PixelFormat::kGray8, MemoryKind::kHost};
}

// Whether `call` throws a gpusift::Error with `code`.
bool throws(const std::function<void()>& call, ErrorCode code) {
  try {
    call();
  } catch (const Error& error) {
    return error.code() == code;
  }
  return false;
}

class CpuExtractorInFlight : public ::testing::Test {
 protected:
  void SetUp() override {
    extractor_ = create_extractor(Backend::kCpu, SiftParams{});
    const cv::Mat camera = load_gray("camera.png");
    ASSERT_FALSE(camera.empty());
    first_ = resized(camera, 160, 120);
    second_ = resized(camera, 120, 160);
  }
  std::unique_ptr<Extractor> extractor_;
  cv::Mat first_, second_;
};

TEST_F(CpuExtractorInFlight, HoldsOneFrameAndCollectsWhatExtractGives) {
  EXPECT_EQ(extractor_->max_in_flight(), 1);
  EXPECT_EQ(extractor_->in_flight(), 0);
  Features expected;
  extractor_->extract(gray_view(first_), &expected);
  ASSERT_FALSE(expected.keypoints.empty());

  extractor_->submit(gray_view(first_));
  EXPECT_EQ(extractor_->in_flight(), 1);
  Features collected;
  extractor_->collect(&collected);
  EXPECT_EQ(extractor_->in_flight(), 0);
  EXPECT_TRUE(bit_identical(collected, expected));
}

TEST_F(CpuExtractorInFlight, RefusesASecondFrameAndKeepsTheFirst) {
  Features expected;
  extractor_->extract(gray_view(first_), &expected);
  extractor_->submit(gray_view(first_));
  EXPECT_TRUE(throws([&] { extractor_->submit(gray_view(second_)); }, ErrorCode::kInvalidArgument));
  EXPECT_EQ(extractor_->in_flight(), 1);
  Features collected;
  extractor_->collect(&collected);
  EXPECT_TRUE(bit_identical(collected, expected));
}

TEST_F(CpuExtractorInFlight, CollectWithoutAFrameAndBadFramesAreInvalidArguments) {
  Features out;
  EXPECT_TRUE(throws([&] { extractor_->collect(&out); }, ErrorCode::kInvalidArgument));
  const FrameView no_pixels{nullptr, 160, 160, 120, PixelFormat::kGray8, MemoryKind::kHost};
  EXPECT_TRUE(throws([&] { extractor_->submit(no_pixels); }, ErrorCode::kInvalidArgument));
  EXPECT_EQ(extractor_->in_flight(), 0);
  // The extractor goes on after the refusals.
  extractor_->submit(gray_view(second_));
  extractor_->collect(&out);
  EXPECT_FALSE(out.keypoints.empty());
}

TEST_F(CpuExtractorInFlight, CancelDropsTheHeldFrame) {
  extractor_->submit(gray_view(first_));
  extractor_->cancel();
  EXPECT_EQ(extractor_->in_flight(), 0);
  Features out;
  EXPECT_TRUE(throws([&] { extractor_->collect(&out); }, ErrorCode::kInvalidArgument));
}

}  // namespace
}  // namespace gpusift::testing
