// SPDX-License-Identifier: LGPL-2.1-or-later
// Host frames read in place (HostFrameAccess::kMapped, the integrated-GPU path) give exactly the
// results of host frames uploaded first (kCopy), for every kind of host memory, pixel format,
// pitch and frames in flight; and the mapped path really skips the upload buffer.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <opencv2/imgproc.hpp>
#include <string>
#include <utility>
#include <vector>

#include "gpu_fixture.h"
#include "gpusift/cuda_surf.h"
#include "gpusift/extractor.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

class CudaHostFrames : public CudaTest {};

// A copy of `image` in page-locked memory, rows `pitch` bytes apart.
class PinnedImage {
 public:
  PinnedImage(const cv::Mat& image, size_t pitch) : pitch_(pitch) {
    const size_t row = image.cols * image.elemSize();
    if (cudaMallocHost(&data_, pitch * image.rows) != cudaSuccess)
      throw std::runtime_error("cudaMallocHost");
    std::memset(data_, 0x5a, pitch * image.rows);
    for (int y = 0; y < image.rows; ++y)
      std::memcpy(static_cast<uint8_t*>(data_) + y * pitch, image.ptr(y), row);
  }
  ~PinnedImage() { cudaFreeHost(data_); }
  PinnedImage(const PinnedImage&) = delete;
  PinnedImage& operator=(const PinnedImage&) = delete;
  const uint8_t* data() const { return static_cast<const uint8_t*>(data_); }
  size_t pitch() const { return pitch_; }

 private:
  void* data_ = nullptr;
  size_t pitch_;
};

// Pageable memory that cudaHostRegister pins in place, as an application's own buffers would be.
class RegisteredImage {
 public:
  explicit RegisteredImage(const cv::Mat& image) : copy_(image.clone()) {
    registered_ = cudaHostRegister(copy_.data, copy_.total() * copy_.elemSize(),
                                   cudaHostRegisterDefault) == cudaSuccess;
  }
  ~RegisteredImage() {
    if (registered_)
      cudaHostUnregister(copy_.data);
  }
  RegisteredImage(const RegisteredImage&) = delete;
  RegisteredImage& operator=(const RegisteredImage&) = delete;
  bool registered() const { return registered_; }
  const cv::Mat& image() const { return copy_; }

 private:
  cv::Mat copy_;
  bool registered_ = false;
};

FrameView host_view(const void* data, size_t pitch, const cv::Mat& like, PixelFormat format) {
  return FrameView{data, pitch, like.cols, like.rows, format, MemoryKind::kHost};
}

struct HostFrameCase {
  std::string name;
  FrameView frame;
};

TEST_F(CudaHostFrames, AutoMapsOnlyOnIntegratedGpus) {
  int integrated = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&integrated, cudaDevAttrIntegrated, 0), cudaSuccess);
  CudaSiftExtractor sift{SiftParams{}};
  CudaSurfExtractor surf{SurfParams{}};
  EXPECT_EQ(sift.maps_host_frames(), integrated != 0);
  EXPECT_EQ(surf.maps_host_frames(), integrated != 0);
  sift.set_host_frame_access(HostFrameAccess::kMapped);
  surf.set_host_frame_access(HostFrameAccess::kMapped);
  EXPECT_TRUE(sift.maps_host_frames());
  EXPECT_TRUE(surf.maps_host_frames());
  sift.set_host_frame_access(HostFrameAccess::kCopy);
  EXPECT_FALSE(sift.maps_host_frames());
}

TEST_F(CudaHostFrames, SiftMappedEqualsCopiedForEveryKindOfHostMemory) {
  const cv::Mat bgr = load_bgr("astronaut.png");
  ASSERT_FALSE(bgr.empty());
  cv::Mat gray, rgba;
  cv::cvtColor(bgr, gray, cv::COLOR_BGR2GRAY);
  cv::cvtColor(bgr, rgba, cv::COLOR_BGR2RGBA);
  const cv::Mat odd = resized(gray, 641, 479);
  const PinnedImage pinned(gray, gray.cols);
  const PinnedImage pinned_padded(odd, odd.cols + 93);
  const PinnedImage pinned_rgba(rgba, rgba.step + 64);
  const RegisteredImage registered(gray);
  ASSERT_TRUE(registered.registered());

  const std::vector<HostFrameCase> cases = {
      {"pageable gray", host_view(gray.data, gray.step, gray, PixelFormat::kGray8)},
      {"pageable bgr", host_view(bgr.data, bgr.step, bgr, PixelFormat::kBgr8)},
      {"pinned gray", host_view(pinned.data(), pinned.pitch(), gray, PixelFormat::kGray8)},
      {"pinned odd padded",
       host_view(pinned_padded.data(), pinned_padded.pitch(), odd, PixelFormat::kGray8)},
      {"pinned rgba",
       host_view(pinned_rgba.data(), pinned_rgba.pitch(), rgba, PixelFormat::kRgba8)},
      {"registered gray",
       host_view(registered.image().data, registered.image().step, gray, PixelFormat::kGray8)},
  };
  // OpenCV's parameters without and with upscaling, and the video mode: each takes its own
  // kernels for octave 0's first levels, from the frame's bytes where they were uploaded.
  SiftParams upscaled;
  upscaled.upscale = true;
  const std::pair<std::string, SiftParams> settings[] = {
      {"", SiftParams{}}, {" upscaled", upscaled}, {" video mode", video_sift_params()}};
  for (const auto& [setting, params] : settings) {
    CudaSiftExtractor copied(params), mapped(params);
    copied.set_host_frame_access(HostFrameAccess::kCopy);
    mapped.set_host_frame_access(HostFrameAccess::kMapped);
    for (const HostFrameCase& c : cases) {
      Features expected, actual;
      copied.extract(c.frame, stream_.get(), &expected);
      mapped.extract(c.frame, stream_.get(), &actual);
      EXPECT_GT(expected.keypoints.size(), 100u) << c.name;
      EXPECT_TRUE(identical(expected, actual)) << c.name << setting;
    }
  }
}

TEST_F(CudaHostFrames, SiftMappedFramesInFlightEqualCopied) {
  const cv::Mat a = load_gray("coffee.png"), b = load_gray("chelsea.png");
  const PinnedImage pinned_a(a, a.cols), pinned_b(b, b.cols);
  CudaSiftExtractor copied{SiftParams{}}, mapped{SiftParams{}};
  copied.set_host_frame_access(HostFrameAccess::kCopy);
  mapped.set_host_frame_access(HostFrameAccess::kMapped);
  const std::vector<FrameView> frames = {
      host_view(pinned_a.data(), pinned_a.pitch(), a, PixelFormat::kGray8),
      host_view(b.data, b.step, b, PixelFormat::kGray8),
      host_view(pinned_b.data(), pinned_b.pitch(), b, PixelFormat::kGray8),
      host_view(a.data, a.step, a, PixelFormat::kGray8)};
  std::vector<Features> expected(frames.size()), actual(frames.size());
  for (size_t i = 0; i < frames.size(); ++i)
    copied.extract(frames[i], stream_.get(), &expected[i]);
  mapped.begin(frames[0], stream_.get());
  for (size_t i = 1; i < frames.size(); ++i) {
    mapped.begin(frames[i], stream_.get());
    mapped.finish(&actual[i - 1]);
  }
  mapped.finish(&actual.back());
  for (size_t i = 0; i < frames.size(); ++i)
    EXPECT_TRUE(identical(expected[i], actual[i])) << "frame " << i;
}

// Frames of 1 MiB and more are uploaded in bands of rows, each blurred as soon as it arrives:
// the same results as the frame read from device memory, one at a time (odd sizes too) and two
// in flight.
TEST_F(CudaHostFrames, SiftLargeFramesUploadedInBandsEqualDeviceFrames) {
  const cv::Mat astronaut = load_gray("astronaut.png"), coffee = load_gray("coffee.png");
  const cv::Mat frames[] = {resized(astronaut, 2560, 1920), resized(coffee, 2560, 1920),
                            resized(astronaut, 1921, 1083)};
  for (const SiftParams& params : {video_sift_params(), SiftParams{}}) {
    CudaSiftExtractor from_device(params), from_host(params);
    from_host.set_host_frame_access(HostFrameAccess::kCopy);
    std::vector<Features> expected(3), from_pageable(3), in_flight(2);
    for (int i = 0; i < 3; ++i) {
      const cv::Mat& frame = frames[i];
      uint8_t* device = nullptr;
      ASSERT_EQ(cudaMalloc(&device, frame.total()), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(device, frame.data, frame.total(), cudaMemcpyHostToDevice), cudaSuccess);
      from_device.extract(FrameView{device, static_cast<size_t>(frame.cols), frame.cols, frame.rows,
                                    PixelFormat::kGray8, MemoryKind::kDevice},
                          stream_.get(), &expected[i]);
      cudaFree(device);
      from_host.extract(host_view(frame.data, frame.step, frame, PixelFormat::kGray8),
                        stream_.get(), &from_pageable[i]);
      EXPECT_GT(expected[i].keypoints.size(), 500u) << "frame " << i;
      EXPECT_TRUE(identical(expected[i], from_pageable[i])) << "pageable frame " << i;
    }
    const PinnedImage first(frames[0], frames[0].cols + 40), second(frames[1], frames[1].cols);
    from_host.begin(host_view(first.data(), first.pitch(), frames[0], PixelFormat::kGray8),
                    stream_.get());
    from_host.begin(host_view(second.data(), second.pitch(), frames[1], PixelFormat::kGray8),
                    stream_.get());
    from_host.finish(&in_flight[0]);
    from_host.finish(&in_flight[1]);
    for (int i = 0; i < 2; ++i)
      EXPECT_TRUE(identical(expected[i], in_flight[i])) << "pinned frame in flight " << i;
  }
}

TEST_F(CudaHostFrames, SurfMappedEqualsCopied) {
  const cv::Mat gray = load_gray("brick.png");
  const PinnedImage pinned(gray, gray.cols + 32);
  CudaSurfExtractor copied{SurfParams{}}, mapped{SurfParams{}};
  copied.set_host_frame_access(HostFrameAccess::kCopy);
  mapped.set_host_frame_access(HostFrameAccess::kMapped);
  for (const FrameView& frame :
       {host_view(gray.data, gray.step, gray, PixelFormat::kGray8),
        host_view(pinned.data(), pinned.pitch(), gray, PixelFormat::kGray8)}) {
    Features expected, actual;
    copied.extract(frame, stream_.get(), &expected);
    mapped.extract(frame, stream_.get(), &actual);
    EXPECT_GT(expected.keypoints.size(), 100u);
    EXPECT_TRUE(identical(expected, actual));
  }
}

// The mapped path reserves no device copy of the frame: the kernels read the host's pixels.
TEST_F(CudaHostFrames, MappedPinnedFramesNeedNoUploadBuffer) {
  const cv::Mat gray = load_gray("camera.png");
  const PinnedImage pinned(gray, gray.cols);
  const FrameView frame = host_view(pinned.data(), pinned.pitch(), gray, PixelFormat::kGray8);
  CudaSiftExtractor copied{SiftParams{}}, mapped{SiftParams{}};
  copied.set_host_frame_access(HostFrameAccess::kCopy);
  mapped.set_host_frame_access(HostFrameAccess::kMapped);
  Features f;
  copied.extract(frame, stream_.get(), &f);
  mapped.extract(frame, stream_.get(), &f);
  EXPECT_EQ(copied.reserved_device_bytes() - mapped.reserved_device_bytes(), gray.total());
  EXPECT_EQ(copied.reserved_pinned_bytes(), mapped.reserved_pinned_bytes());
}

TEST_F(CudaHostFrames, ExtractorInterfaceForwardsTheSetting) {
  std::unique_ptr<Extractor> extractor = create_extractor(Backend::kCuda, SiftParams{}, 0);
  extractor->set_host_frame_access(HostFrameAccess::kMapped);
  EXPECT_TRUE(extractor->reads_host_frames_in_place());
  extractor->set_host_frame_access(HostFrameAccess::kCopy);
  EXPECT_FALSE(extractor->reads_host_frames_in_place());
  std::unique_ptr<Extractor> cpu = create_extractor(Backend::kCpu, SiftParams{});
  cpu->set_host_frame_access(HostFrameAccess::kCopy);
  EXPECT_TRUE(cpu->reads_host_frames_in_place());
}

}  // namespace
}  // namespace gpusift::testing
