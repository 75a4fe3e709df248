// SPDX-License-Identifier: LGPL-2.1-or-later
// nfeatures spread over a grid on the CUDA backends: the device selection against the CPU's
// retain_spread on lists with many ties and with counts past the capacity, then both extractors
// against the CPU oracle, bit for bit, across frame sizes and budgets.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "device_array.h"
#include "feature_identity.h"
#include "gpu_fixture.h"
#include "gpusift/cpu_sift.h"
#include "gpusift/cpu_surf.h"
#include "gpusift/cuda_surf.h"
#include "gpusift/keypoint_grid.h"
#include "gpusift/keypoint_selection.h"
#include "spread_selection.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

class CudaSpread : public CudaTest {
 protected:
  Features extract(CudaSurfExtractor& extractor, const cv::Mat& frame) {
    Features out;
    extractor.extract(FrameView{frame.data, frame.step, frame.cols, frame.rows, PixelFormat::kGray8,
                                MemoryKind::kHost},
                      stream_.get(), &out);
    return out;
  }
};

std::vector<Keypoint> canonical_random_keypoints(int width, int height, int n, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> x(-0.5f, width - 0.5f), y(-0.5f, height - 0.5f);
  std::uniform_int_distribution<int> response(1, 12);  // many ties
  std::vector<Keypoint> keypoints;
  for (int i = 0; i < n; ++i)
    keypoints.push_back(Keypoint{x(random), y(random), 3.f, 10.f, 0.02f * response(random), 0, -1});
  sort_and_deduplicate(&keypoints);
  return keypoints;
}

TEST_F(CudaSpread, DeviceSelectionEqualsRetainSpread) {
  struct Case {
    int width, height, n, capacity, count_on_device, limit;
  };
  for (const Case c :
       {Case{640, 480, 3000, 4096, 3000, 500}, Case{640, 480, 3000, 4096, 3000, 1},
        Case{1920, 1080, 20000, 20480, 20000, 2000}, Case{3840, 2160, 60000, 65536, 60000, 20000},
        Case{320, 240, 100, 128, 100, 400},     // fewer than the limit
        Case{320, 240, 500, 500, 900, 200}}) {  // a count past the capacity
    const std::vector<Keypoint> all = canonical_random_keypoints(c.width, c.height, c.n, c.n + 1);
    const int real = std::min<int>(all.size(), c.capacity);
    std::vector<Keypoint> input(c.capacity, Keypoint{});
    std::copy(all.begin(), all.begin() + real, input.begin());
    const KeypointGrid grid = keypoint_grid_for(c.width, c.height, c.limit);
    std::vector<Keypoint> expected(all.begin(), all.begin() + real);
    retain_spread(&expected, c.limit, grid);

    DeviceArray<Keypoint> in(input), out(c.capacity);
    // A count past a full list stands for the detections that found no room.
    const int on_device = real == c.capacity ? c.count_on_device : real;
    DeviceArray<int> count(std::vector<int>{on_device});
    DeviceArray<uint64_t> keys(c.capacity), keys_sorted(c.capacity);
    DeviceArray<uint32_t> order(c.capacity), order_sorted(c.capacity);
    DeviceArray<uint8_t> keep(c.capacity);
    DeviceArray<int> kept(1);
    const size_t scratch_bytes = cuda::list_scratch_bytes(c.capacity);
    DeviceArray<uint8_t> scratch(scratch_bytes);
    const cuda::SpreadWork work{keys.data,         keys_sorted.data, order.data,
                                order_sorted.data, keep.data,        kept.data};
    cuda::keep_spread_counted_on_device(cuda::Scratch{scratch.data, scratch_bytes}, work, grid,
                                        in.data, count.data, c.capacity, c.limit, out.data,
                                        stream_.get());
    ASSERT_EQ(cudaStreamSynchronize(stream_.get()), cudaSuccess);
    const int kept_count = kept.download()[0];
    ASSERT_EQ(kept_count, static_cast<int>(expected.size()))
        << c.width << "x" << c.height << " n " << c.n << " limit " << c.limit;
    const std::vector<Keypoint> ours = out.download();
    for (int i = 0; i < kept_count; ++i)
      ASSERT_EQ(std::memcmp(&ours[i], &expected[i], sizeof(Keypoint)), 0)
          << c.width << "x" << c.height << " limit " << c.limit << " row " << i;
  }
}

TEST_F(CudaSpread, SiftEqualsTheCpuBitForBit) {
  struct Case {
    std::string image;
    int width, height, budget;
    bool video;
  };
  for (const Case& c :
       {Case{"coffee.png", 0, 0, 300, true}, Case{"grass.png", 0, 0, 1000, true},
        Case{"camera.png", 0, 0, 500, false}, Case{"gravel.png", 1920, 1080, 2000, true},
        Case{"brick.png", 3840, 2160, 20000, true}}) {
    cv::Mat gray = load_gray(c.image);
    ASSERT_FALSE(gray.empty()) << c.image;
    if (c.width > 0)
      gray = resized(gray, c.width, c.height);
    SiftParams params = c.video ? video_sift_params() : SiftParams{};
    params.nfeatures = c.budget;
    params.distribution = KeypointDistribution::kGrid;
    params.descriptor = DescriptorFormat::kUint8;
    CpuSiftExtractor cpu(params);
    CudaSiftExtractor gpu(params);
    const Features expected = cpu.extract(gray.data, gray.step, gray.cols, gray.rows);
    const Features ours = extract_host(gpu, gray.data, gray.step, gray.cols, gray.rows);
    std::printf("%-12s %5dx%-5d budget %5d: cpu %5zu cuda %5zu\n", c.image.c_str(), gray.cols,
                gray.rows, c.budget, expected.keypoints.size(), ours.keypoints.size());
    EXPECT_EQ(expected.keypoints.size(), static_cast<size_t>(c.budget)) << c.image;
    EXPECT_TRUE(bit_identical(expected, ours)) << c.image;
  }
}

// One extractor through frames of changing size: the grid follows each frame.
TEST_F(CudaSpread, SiftFollowsTheFrameSize) {
  const cv::Mat gray = load_gray("astronaut.png");
  ASSERT_FALSE(gray.empty());
  SiftParams params = video_sift_params();
  params.nfeatures = 400;
  params.distribution = KeypointDistribution::kGrid;
  CpuSiftExtractor cpu(params);
  CudaSiftExtractor gpu(params);
  for (const cv::Size size :
       {cv::Size(512, 512), cv::Size(1280, 720), cv::Size(640, 360), cv::Size(512, 512)}) {
    const cv::Mat frame = resized(gray, size.width, size.height);
    EXPECT_TRUE(bit_identical(cpu.extract(frame.data, frame.step, frame.cols, frame.rows),
                              extract_host(gpu, frame.data, frame.step, frame.cols, frame.rows)))
        << size;
  }
}

TEST_F(CudaSpread, SurfEqualsTheCpuBitForBit) {
  for (const std::string image : {"grass.png", "coffee.png"}) {
    const cv::Mat gray = load_gray(image);
    ASSERT_FALSE(gray.empty()) << image;
    SurfParams params;
    params.nfeatures = 300;
    params.distribution = KeypointDistribution::kGrid;
    CpuSurfExtractor cpu(params);
    CudaSurfExtractor gpu(params);
    const Features expected = cpu.extract(gray.data, gray.step, gray.cols, gray.rows);
    EXPECT_EQ(expected.keypoints.size(), 300u) << image;
    EXPECT_TRUE(bit_identical(expected, extract(gpu, gray))) << image;
  }
}

}  // namespace
}  // namespace gpusift::testing
