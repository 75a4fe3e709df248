// Bit-identical output run after run, and independent extractors on concurrent streams.
#include <thread>

#include "gpu_fixture.h"
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

}  // namespace
}  // namespace gpusift::testing
