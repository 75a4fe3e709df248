// SPDX-License-Identifier: LGPL-2.1-or-later
// The frames the CUDA backend must take or refuse: sizes, pitches, memory kinds, pixel formats,
// capacity overflow and running out of device memory.
#include <cuda_runtime.h>

#include <functional>
#include <utility>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "feature_agreement.h"
#include "feature_identity.h"
#include "gpu_fixture.h"
#include "gpusift/cpu_sift.h"
#include "gpusift/error.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

class CudaFrames : public CudaTest {};

// `gray` in pitched device memory, each row starting `offset` bytes after the pitch's boundary.
class PitchedDeviceGray {
 public:
  PitchedDeviceGray(const cv::Mat& gray, int offset) : width_(gray.cols), height_(gray.rows) {
    copied_ = cudaMallocPitch(&base_, &pitch_, gray.cols + offset + 3, gray.rows) == cudaSuccess &&
              cudaMemcpy2D(static_cast<uint8_t*>(base_) + offset, pitch_, gray.data, gray.step,
                           gray.cols, gray.rows, cudaMemcpyHostToDevice) == cudaSuccess;
    rows_ = static_cast<uint8_t*>(base_) + offset;
  }
  ~PitchedDeviceGray() { cudaFree(base_); }
  PitchedDeviceGray(const PitchedDeviceGray&) = delete;
  PitchedDeviceGray& operator=(const PitchedDeviceGray&) = delete;

  bool copied() const { return copied_; }
  FrameView view() const {
    return FrameView{rows_, pitch_, width_, height_, PixelFormat::kGray8, MemoryKind::kDevice};
  }

 private:
  void* base_ = nullptr;
  uint8_t* rows_ = nullptr;
  size_t pitch_ = 0;
  int width_, height_;
  bool copied_ = false;
};

TEST_F(CudaFrames, TinyAndOddSizesAgreeWithTheCpuBackend) {
  CudaSiftExtractor gpu{SiftParams{}};
  CpuSiftExtractor cpu{SiftParams{}};
  const cv::Mat gray = load_gray("camera.png");
  ASSERT_FALSE(gray.empty());
  for (cv::Size size : {cv::Size(1, 1), cv::Size(2, 2), cv::Size(7, 5), cv::Size(16, 16),
                        cv::Size(33, 17), cv::Size(641, 479), cv::Size(333, 1)}) {
    const cv::Mat frame = resized(gray, size.width, size.height);
    const Features f = extract_host(gpu, frame.data, frame.step, frame.cols, frame.rows);
    const Features ref = cpu.extract(frame.data, frame.step, frame.cols, frame.rows);
    if (size.area() <= 35) {
      EXPECT_TRUE(f.keypoints.empty()) << size;
    }
    const Agreement a =
        compare_features(to_cv_keypoints(ref), cv::Mat(), to_cv_keypoints(f), cv::Mat());
    EXPECT_GE(a.recall, 0.98) << size;
    EXPECT_GE(a.precision, 0.98) << size;
  }
}

TEST_F(CudaFrames, ConstantFrameHasNoKeypoints) {
  CudaSiftExtractor gpu{SiftParams{}};
  const cv::Mat flat(480, 640, CV_8U, cv::Scalar(128));
  EXPECT_TRUE(extract_host(gpu, flat.data, flat.step, flat.cols, flat.rows).keypoints.empty());
}

TEST_F(CudaFrames, PaddedHostRowsEqualPackedRows) {
  const cv::Mat gray = resized(load_gray("chelsea.png"), 451, 301);
  cv::Mat padded(gray.rows, gray.cols + 77, CV_8U);
  cv::randu(padded, 0, 255);
  gray.copyTo(padded(cv::Rect(0, 0, gray.cols, gray.rows)));
  CudaSiftExtractor gpu{SiftParams{}};
  const Features packed = extract_host(gpu, gray.data, gray.step, gray.cols, gray.rows);
  const Features from_padded = extract_host(gpu, padded.data, padded.step, gray.cols, gray.rows);
  ASSERT_GT(packed.keypoints.size(), 100u);
  EXPECT_TRUE(identical(packed, from_padded));
}

TEST_F(CudaFrames, PinnedAndPitchedDeviceInputEqualPageableInput) {
  const cv::Mat gray = load_gray("coins.png");
  CudaSiftExtractor gpu{SiftParams{}};
  const Features pageable = extract_host(gpu, gray.data, gray.step, gray.cols, gray.rows);
  ASSERT_GT(pageable.keypoints.size(), 100u);

  void* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(&pinned, gray.total()), cudaSuccess);
  std::memcpy(pinned, gray.data, gray.total());
  const Features from_pinned =
      extract_host(gpu, static_cast<uint8_t*>(pinned), gray.cols, gray.cols, gray.rows);
  cudaFreeHost(pinned);
  EXPECT_TRUE(identical(pageable, from_pinned));

  const PitchedDeviceGray device(gray, 0);
  ASSERT_TRUE(device.copied());
  Features from_device;
  gpu.extract(device.view(), stream_.get(), &from_device);
  EXPECT_TRUE(identical(pageable, from_device));

  const DeviceFeatures on_device = gpu.device_features();
  ASSERT_EQ(on_device.count, static_cast<int>(from_device.keypoints.size()));
  std::vector<Keypoint> copied(on_device.count);
  ASSERT_EQ(cudaMemcpy(copied.data(), on_device.keypoints, sizeof(Keypoint) * copied.size(),
                       cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_EQ(0, std::memcmp(copied.data(), from_device.keypoints.data(),
                           sizeof(Keypoint) * copied.size()));

  EXPECT_EQ(ErrorCode::kInvalidArgument, code_of([&] {
              Features f;
              gpu.extract(FrameView{gray.data, gray.step, gray.cols, gray.rows, PixelFormat::kGray8,
                                    MemoryKind::kDevice},
                          stream_.get(), &f);
            }));
}

// GRAY8 rows on 4-byte boundaries are converted four pixels at a time, with a tail for widths
// that are no multiple of four; other rows a pixel at a time. Both must give the same features.
TEST_F(CudaFrames, GrayFramesOfEveryWidthAndAlignmentEqualPackedHostInput) {
  const cv::Mat source = load_gray("chelsea.png");
  CudaSiftExtractor gpu{video_sift_params()};
  for (int width : {448, 449, 450, 451}) {
    const cv::Mat gray = resized(source, width, 300);
    const Features packed = extract_host(gpu, gray.data, gray.step, gray.cols, gray.rows);
    ASSERT_GT(packed.keypoints.size(), 100u) << width;
    for (int offset : {0, 1}) {  // with 1, no row starts on a 4-byte boundary
      const PitchedDeviceGray device(gray, offset);
      ASSERT_TRUE(device.copied());
      Features from_device;
      gpu.extract(device.view(), stream_.get(), &from_device);
      EXPECT_TRUE(identical(packed, from_device)) << width << " offset " << offset;
    }
  }
}

TEST_F(CudaFrames, ColourFormatsConvertLikeOpenCv) {
  const cv::Mat bgr = load_bgr("astronaut.png");
  ASSERT_FALSE(bgr.empty());
  cv::Mat gray;
  cv::cvtColor(bgr, gray, cv::COLOR_BGR2GRAY);
  CudaSiftExtractor gpu{SiftParams{}};
  const Features expected = extract_host(gpu, gray.data, gray.step, gray.cols, gray.rows);
  ASSERT_GT(expected.keypoints.size(), 500u);

  cv::Mat rgb, bgra, rgbx;
  cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  cv::cvtColor(bgr, bgra, cv::COLOR_BGR2BGRA);
  cv::cvtColor(bgr, rgbx, cv::COLOR_BGR2RGBA);
  EXPECT_TRUE(identical(
      expected, extract_host(gpu, bgr.data, bgr.step, bgr.cols, bgr.rows, PixelFormat::kBgr8)));
  EXPECT_TRUE(identical(
      expected, extract_host(gpu, rgb.data, rgb.step, rgb.cols, rgb.rows, PixelFormat::kRgb8)));
  EXPECT_TRUE(identical(expected, extract_host(gpu, bgra.data, bgra.step, bgra.cols, bgra.rows,
                                               PixelFormat::kBgrx8)));
  EXPECT_TRUE(identical(expected, extract_host(gpu, rgbx.data, rgbx.step, rgbx.cols, rgbx.rows,
                                               PixelFormat::kRgba8)));
}

TEST_F(CudaFrames, LargeFrameWorksAndHugeFrameIsRefusedBeforeAllocating) {
  const cv::Mat big = resized(load_gray("astronaut.png"), 4096, 4096);
  CudaSiftExtractor gpu{SiftParams{}};
  const Features f = extract_host(gpu, big.data, big.step, big.cols, big.rows);
  EXPECT_GT(f.keypoints.size(), 1000u);
  const size_t reserved = gpu.reserved_device_bytes();
  EXPECT_EQ(ErrorCode::kFrameTooLarge,
            code_of([&] { extract_host(gpu, big.data, 100000, 100000, 40); }));
  EXPECT_EQ(reserved, gpu.reserved_device_bytes());
  EXPECT_EQ(ErrorCode::kInvalidArgument, code_of([&] { extract_host(gpu, nullptr, 64, 64, 64); }));
  EXPECT_EQ(ErrorCode::kInvalidArgument, code_of([&] { extract_host(gpu, big.data, 10, 64, 64); }));
}

TEST_F(CudaFrames, ResolutionChangeRebuildsBuffers) {
  const cv::Mat gray = load_gray("brick.png");
  const cv::Mat small = resized(gray, 320, 240);
  CudaSiftExtractor reused{SiftParams{}};
  const Features first = extract_host(reused, gray.data, gray.step, gray.cols, gray.rows);
  const size_t big_bytes = reused.reserved_device_bytes();
  const Features second = extract_host(reused, small.data, small.step, small.cols, small.rows);
  EXPECT_LT(reused.reserved_device_bytes(), big_bytes);
  const Features third = extract_host(reused, gray.data, gray.step, gray.cols, gray.rows);
  CudaSiftExtractor fresh{SiftParams{}};
  EXPECT_TRUE(identical(first, third));
  EXPECT_TRUE(
      identical(second, extract_host(fresh, small.data, small.step, small.cols, small.rows)));
}

// One Features through frames of other sizes, a frame without keypoints and extractors with
// other descriptor formats (see expect_reused_features_hold_each_result).
TEST_F(CudaFrames, ReusedFeaturesHoldExactlyEachFramesResult) {
  const cv::Mat gray = load_gray("brick.png");
  ASSERT_FALSE(gray.empty());
  const cv::Mat small = resized(gray, 320, 240);
  const cv::Mat tiny = resized(gray, 8, 8);
  SiftParams bytes_params, bare_params;
  bytes_params.descriptor = DescriptorFormat::kUint8;
  bare_params.descriptor = DescriptorFormat::kNone;
  CudaSiftExtractor floats{SiftParams{}}, bytes{bytes_params}, bare{bare_params};
  const std::vector<std::pair<CudaSiftExtractor*, const cv::Mat*>> sequence = {
      {&floats, &gray},  {&floats, &small}, {&floats, &tiny}, {&bytes, &gray},
      {&floats, &small}, {&bare, &gray},    {&floats, &gray}};
  expect_reused_features_hold_each_result(sequence);
}

TEST_F(CudaFrames, OverflowKeepsTheStrongestAndSaysSo) {
  const cv::Mat gray = load_gray("gravel.png");
  CudaSiftExtractor unlimited{SiftParams{}};
  const Features all = extract_host(unlimited, gray.data, gray.step, gray.cols, gray.rows);
  ASSERT_GT(all.keypoints.size(), 200u);
  EXPECT_FALSE(all.overflowed);

  SiftParams capped;
  capped.max_keypoints = 100;
  CudaSiftExtractor gpu(capped);
  const Features kept = extract_host(gpu, gray.data, gray.step, gray.cols, gray.rows);
  EXPECT_TRUE(kept.overflowed);
  EXPECT_GT(kept.detected_count, 100);
  ASSERT_EQ(kept.keypoints.size(), 100u);
  EXPECT_EQ(kept.descriptor_row_count(), 100);
  float weakest_kept = 1e9f;
  for (const Keypoint& k : kept.keypoints)
    weakest_kept = std::min(weakest_kept, k.response);
  int stronger = 0;
  for (const Keypoint& k : all.keypoints)
    stronger += k.response > weakest_kept;
  EXPECT_LE(stronger, 100);
}

TEST_F(CudaFrames, OutOfDeviceMemoryIsAnErrorAndTheExtractorRecovers) {
  const cv::Mat big = resized(load_gray("astronaut.png"), 4096, 4096);
  CudaSiftExtractor gpu{SiftParams{}};
  EXPECT_EQ(ErrorCode::kOutOfMemory, code_with_device_memory_taken([&] {
              extract_host(gpu, big.data, big.step, big.cols, big.rows);
            }));
  const Features after = extract_host(gpu, big.data, big.step, big.cols, big.rows);
  EXPECT_GT(after.keypoints.size(), 1000u);
}

}  // namespace
}  // namespace gpusift::testing
