// SPDX-License-Identifier: LGPL-2.1-or-later
// Bit-identical output run after run, and independent extractors on concurrent streams.
#include <exception>
#include <memory>
#include <string>
#include <thread>

#include "gpu_fixture.h"
#include "gpusift/extractor.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

class CudaDeterminism : public CudaTest {};

TEST_F(CudaDeterminism, TenRunsAreBitIdentical) {
  const cv::Mat gray = load_gray("astronaut.png");
  ASSERT_FALSE(gray.empty());
  CudaSiftExtractor gpu{SiftParams{}};
  const Features first = extract_host(gpu, gray.data, gray.step, gray.cols, gray.rows);
  ASSERT_GT(first.keypoints.size(), 500u);
  for (int run = 1; run < 10; ++run) {
    const Features again = extract_host(gpu, gray.data, gray.step, gray.cols, gray.rows);
    ASSERT_TRUE(identical(first, again)) << "run " << run << " differs";
  }
}

TEST_F(CudaDeterminism, StrongestSelectionIsBitIdentical) {
  const cv::Mat gray = load_gray("brick.png");
  ASSERT_FALSE(gray.empty());
  SiftParams params;
  params.nfeatures = 200;
  params.descriptor = DescriptorFormat::kUint8;
  CudaSiftExtractor gpu(params);
  const Features first = extract_host(gpu, gray.data, gray.step, gray.cols, gray.rows);
  ASSERT_EQ(first.keypoints.size(), 200u);
  for (int run = 1; run < 10; ++run)
    ASSERT_TRUE(identical(first, extract_host(gpu, gray.data, gray.step, gray.cols, gray.rows)));
}

TEST_F(CudaDeterminism, ConcurrentExtractorsOnTwoStreamsEqualSerialResults) {
  const cv::Mat a = load_gray("coffee.png");
  const cv::Mat b = load_gray("camera.png");
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  CudaSiftExtractor first{SiftParams{}};
  CudaSiftExtractor second{SiftParams{}};
  const Features serial_a = extract_host(first, a.data, a.step, a.cols, a.rows);
  const Features serial_b = extract_host(second, b.data, b.step, b.cols, b.rows);

  OwnedCudaStream other_stream(device_);
  std::vector<Features> parallel_a(5), parallel_b(5);
  std::thread worker([&] {
    ScopedCudaDevice device(0);  // the device is per thread in the runtime API
    for (Features& f : parallel_b)
      second.extract(
          FrameView{b.data, b.step, b.cols, b.rows, PixelFormat::kGray8, MemoryKind::kHost},
          other_stream.get(), &f);
  });
  for (Features& f : parallel_a)
    first.extract(FrameView{a.data, a.step, a.cols, a.rows, PixelFormat::kGray8, MemoryKind::kHost},
                  stream_.get(), &f);
  worker.join();
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(identical(serial_a, parallel_a[i])) << "frame " << i;
    EXPECT_TRUE(identical(serial_b, parallel_b[i])) << "frame " << i;
  }
}

// `frames` of `frame` through `extractor` with as many in flight as it takes.
std::vector<Features> extract_in_flight(Extractor& extractor, const FrameView& frame, int frames) {
  std::vector<Features> out(frames);
  int collected = 0;
  for (int i = 0; i < frames; ++i) {
    if (extractor.in_flight() == extractor.max_in_flight())
      extractor.collect(&out[collected++]);
    extractor.submit(frame);
  }
  while (extractor.in_flight() > 0)
    extractor.collect(&out[collected++]);
  return out;
}

// As gpusiftfilter's instances run: each thread its own factory extractor (and so its own
// non-blocking stream) with frames in flight, from pinned host memory.
TEST_F(CudaDeterminism, FactoryExtractorsOnTwoThreadsWithFramesInFlightEqualOneAlone) {
  const cv::Mat a = resized(load_gray("coffee.png"), 1920, 1080);
  const cv::Mat b = resized(load_gray("camera.png"), 1920, 1080);
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  SiftParams params;
  params.upscale = false;
  void* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(&pinned, a.total() + b.total()), cudaSuccess);
  std::memcpy(pinned, a.data, a.total());
  std::memcpy(static_cast<uint8_t*>(pinned) + a.total(), b.data, b.total());
  const FrameView frame_a{pinned, size_t(a.cols),      a.cols,
                          a.rows, PixelFormat::kGray8, MemoryKind::kHost};
  const FrameView frame_b{static_cast<uint8_t*>(pinned) + a.total(),
                          size_t(b.cols),
                          b.cols,
                          b.rows,
                          PixelFormat::kGray8,
                          MemoryKind::kHost};
  Features alone_a, alone_b;
  create_extractor(Backend::kCuda, params, 0)->extract(frame_a, &alone_a);
  create_extractor(Backend::kCuda, params, 0)->extract(frame_b, &alone_b);
  ASSERT_GT(alone_a.keypoints.size(), 500u);
  ASSERT_GT(alone_b.keypoints.size(), 500u);

  std::vector<Features> together_a, together_b;
  std::string worker_error;
  std::thread worker([&] {
    try {
      together_b = extract_in_flight(*create_extractor(Backend::kCuda, params, 0), frame_b, 8);
    } catch (const std::exception& e) {
      worker_error = e.what();
    }
  });
  together_a = extract_in_flight(*create_extractor(Backend::kCuda, params, 0), frame_a, 8);
  worker.join();
  cudaFreeHost(pinned);
  ASSERT_EQ(worker_error, "");
  ASSERT_EQ(together_a.size(), 8u);
  ASSERT_EQ(together_b.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_TRUE(bit_identical(alone_a, together_a[i])) << "frame " << i;
    EXPECT_TRUE(bit_identical(alone_b, together_b[i])) << "frame " << i;
  }
}

}  // namespace
}  // namespace gpusift::testing
