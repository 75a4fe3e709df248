// SPDX-License-Identifier: LGPL-2.1-or-later
// The factories' extractors and matchers run on non-blocking streams of their own; each frame or
// job waits for an event on the legacy default stream instead, where GStreamer 1.22's CUDA
// elements write frames and gpusiftfilter copies descriptors. Each test holds the legacy stream
// back with a sleeping host function first, so that work not ordered after it would read, or
// overwrite, memory before the legacy stream got there.
#include <cuda_runtime.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gpu_fixture.h"
#include "gpusift/extractor.h"
#include "gpusift/matcher.h"
#include "match_data.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

void CUDART_CB sleep_a_while(void*) {
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
}

// Work enqueued on the legacy default stream from now on starts 200 ms later.
void hold_legacy_stream() {
  ASSERT_EQ(cudaLaunchHostFunc(cudaStreamLegacy, sleep_a_while, nullptr), cudaSuccess);
}

// Pinned, so that copies from and to it return before they run.
class PinnedBuffer {
 public:
  explicit PinnedBuffer(size_t bytes) {
    if (cudaMallocHost(&data_, bytes) != cudaSuccess)
      data_ = nullptr;
  }
  ~PinnedBuffer() { cudaFreeHost(data_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* data() const { return data_; }

 private:
  void* data_ = nullptr;
};

class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) {
    if (cudaMalloc(&data_, bytes) != cudaSuccess)
      data_ = nullptr;
  }
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* data() const { return data_; }

 private:
  void* data_ = nullptr;
};

class CudaStreamOrder : public CudaTest {};

TEST_F(CudaStreamOrder, DeviceFrameWrittenOnTheLegacyStreamJustBeforeIsReadWhole) {
  const cv::Mat gray = load_gray("astronaut.png");
  ASSERT_FALSE(gray.empty());
  ASSERT_TRUE(gray.isContinuous());
  const size_t width = gray.cols;
  PinnedBuffer pinned(gray.total());
  DeviceBuffer device(gray.total());
  ASSERT_NE(pinned.data(), nullptr);
  ASSERT_NE(device.data(), nullptr);
  std::memcpy(pinned.data(), gray.data, gray.total());
  const FrameView host{pinned.data(),    width, gray.cols, gray.rows, PixelFormat::kGray8,
                       MemoryKind::kHost};
  const FrameView on_device{device.data(),      width, gray.cols, gray.rows, PixelFormat::kGray8,
                            MemoryKind::kDevice};

  FeatureConfig sift;
  sift.sift.upscale = false;
  FeatureConfig surf;
  surf.method = Method::kSurf;
  struct Case {
    std::string label;
    std::function<std::unique_ptr<Extractor>()> make;
    bool submit;
  };
  const std::vector<Case> cases = {
      {"SIFT on the current context, extract",
       [&] { return create_cuda_extractor_on_current_context(sift); }, false},
      {"SIFT on the current context, submit and collect",
       [&] { return create_cuda_extractor_on_current_context(sift); }, true},
      {"SIFT on device 0, submit and collect",
       [&] { return create_extractor(Backend::kCuda, sift, 0); }, true},
      {"SURF on the current context, extract",
       [&] { return create_cuda_extractor_on_current_context(surf); }, false},
  };
  for (const Case& c : cases) {
    const std::unique_ptr<Extractor> extractor = c.make();
    Features expected;
    extractor->extract(host, &expected);
    ASSERT_GT(expected.keypoints.size(), 100u) << c.label;
    // Sized for the frame in device memory first, so that nothing is allocated below.
    ASSERT_EQ(cudaMemcpy(device.data(), pinned.data(), gray.total(), cudaMemcpyHostToDevice),
              cudaSuccess);
    Features warm;
    extractor->extract(on_device, &warm);
    ASSERT_EQ(cudaMemset(device.data(), 0, gray.total()), cudaSuccess);

    hold_legacy_stream();
    ASSERT_EQ(cudaMemcpyAsync(device.data(), pinned.data(), gray.total(), cudaMemcpyHostToDevice,
                              cudaStreamLegacy),
              cudaSuccess);
    Features got;
    if (c.submit) {
      extractor->submit(on_device);
      extractor->collect(&got);
    } else {
      extractor->extract(on_device, &got);
    }
    EXPECT_TRUE(bit_identical(expected, got)) << c.label;
  }
}

// gpusiftfilter's device descriptor copies: enqueued on the legacy stream after a frame's
// collect(), they must read that frame's results although the next frames have been submitted.
TEST_F(CudaStreamOrder, ResultsCopiedOnTheLegacyStreamAreReadBeforeTheNextFramesOverwriteThem) {
  const cv::Mat first = load_gray("astronaut.png");
  ASSERT_FALSE(first.empty());
  cv::Mat next;
  cv::flip(first, next, 1);
  const FrameView first_frame{first.data, first.step,          first.cols,
                              first.rows, PixelFormat::kGray8, MemoryKind::kHost};
  const FrameView next_frame{next.data, next.step,           next.cols,
                             next.rows, PixelFormat::kGray8, MemoryKind::kHost};
  SiftParams params;
  params.upscale = false;
  const std::unique_ptr<Extractor> extractor = create_cuda_extractor_on_current_context(params);
  Features expected;
  extractor->extract(first_frame, &expected);
  DeviceFeatures on_device{};
  ASSERT_TRUE(extractor->device_features(&on_device));
  ASSERT_GT(on_device.count, 100);
  ASSERT_EQ(on_device.count, static_cast<int>(expected.keypoints.size()));
  ASSERT_EQ(on_device.descriptor_size, kSiftDescriptorSize);
  const size_t keypoint_bytes = sizeof(Keypoint) * on_device.count;
  const size_t descriptor_bytes = sizeof(float) * kSiftDescriptorSize * on_device.count;
  PinnedBuffer keypoints(keypoint_bytes), descriptors(descriptor_bytes);
  ASSERT_NE(keypoints.data(), nullptr);
  ASSERT_NE(descriptors.data(), nullptr);

  hold_legacy_stream();
  ASSERT_EQ(cudaMemcpyAsync(keypoints.data(), on_device.keypoints, keypoint_bytes,
                            cudaMemcpyDeviceToHost, cudaStreamLegacy),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(descriptors.data(), on_device.descriptors, descriptor_bytes,
                            cudaMemcpyDeviceToHost, cudaStreamLegacy),
            cudaSuccess);
  Features later;
  for (int i = 0; i < extractor->max_in_flight(); ++i)
    extractor->submit(next_frame);
  while (extractor->in_flight() > 0)
    extractor->collect(&later);
  ASSERT_EQ(cudaStreamSynchronize(cudaStreamLegacy), cudaSuccess);
  EXPECT_FALSE(bit_identical(expected, later));
  EXPECT_EQ(0, std::memcmp(keypoints.data(), expected.keypoints.data(), keypoint_bytes));
  EXPECT_EQ(0,
            std::memcmp(descriptors.data(), expected.float_descriptors.data(), descriptor_bytes));
}

TEST_F(CudaStreamOrder, DescriptorsWrittenOnTheLegacyStreamJustBeforeAreMatchedWhole) {
  const cv::Mat gray = load_gray("camera.png");
  ASSERT_FALSE(gray.empty());
  const DescriptorSet query = sift_set(gray, DescriptorFormat::kFloat, false);
  const DescriptorSet train =
      sift_set(warped(gray, test_homography(gray.size())), DescriptorFormat::kFloat, false);
  const std::unique_ptr<Matcher> matcher = create_cuda_matcher_on_current_context();
  std::vector<Match> expected;
  matcher->match(query.view(), train.view(), MatchParams{}, &expected);
  ASSERT_GT(expected.size(), 50u);

  PinnedBuffer pinned_query(query.value_bytes()), pinned_train(train.value_bytes());
  DeviceBuffer device_query(query.value_bytes()), device_train(train.value_bytes());
  ASSERT_NE(pinned_query.data(), nullptr);
  ASSERT_NE(pinned_train.data(), nullptr);
  ASSERT_NE(device_query.data(), nullptr);
  ASSERT_NE(device_train.data(), nullptr);
  std::memcpy(pinned_query.data(), query.data(), query.value_bytes());
  std::memcpy(pinned_train.data(), train.data(), train.value_bytes());
  ASSERT_EQ(cudaMemset(device_query.data(), 0, query.value_bytes()), cudaSuccess);
  ASSERT_EQ(cudaMemset(device_train.data(), 0, train.value_bytes()), cudaSuccess);
  DescriptorSetView query_view = query.view(), train_view = train.view();
  query_view.data = device_query.data();
  query_view.memory = MemoryKind::kDevice;
  train_view.data = device_train.data();
  train_view.memory = MemoryKind::kDevice;

  hold_legacy_stream();
  ASSERT_EQ(cudaMemcpyAsync(device_query.data(), pinned_query.data(), query.value_bytes(),
                            cudaMemcpyHostToDevice, cudaStreamLegacy),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(device_train.data(), pinned_train.data(), train.value_bytes(),
                            cudaMemcpyHostToDevice, cudaStreamLegacy),
            cudaSuccess);
  std::vector<Match> got;
  matcher->match(query_view, train_view, MatchParams{}, &got);
  EXPECT_TRUE(bit_identical(expected, got))
      << got.size() << " matches, " << expected.size() << " expected";
}

}  // namespace
}  // namespace gpusift::testing
