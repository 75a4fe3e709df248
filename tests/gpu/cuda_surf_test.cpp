// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA SURF backend against the CPU SURF backend on real images, and its contract: the
// CPU's canonical order, bit-identical runs, edge sizes, overflow, memory kinds and formats.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <opencv2/imgproc.hpp>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "feature_agreement.h"
#include "feature_identity.h"
#include "gpu_fixture.h"
#include "gpusift/cpu_surf.h"
#include "gpusift/cuda_surf.h"
#include "gpusift/error.h"
#include "gpusift/keypoint_selection.h"
#include "gpusift/surf_orientation.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

class CudaSurf : public CudaTest {
 protected:
  Features extract(CudaSurfExtractor& extractor, const cv::Mat& frame,
                   PixelFormat format = PixelFormat::kGray8) {
    Features out;
    extractor.extract(
        FrameView{frame.data, frame.step, frame.cols, frame.rows, format, MemoryKind::kHost},
        stream_.get(), &out);
    return out;
  }
};

Features cpu_surf(const cv::Mat& gray, const SurfParams& params = SurfParams{}) {
  CpuSurfExtractor cpu(params);
  return cpu.extract(gray.data, gray.step, gray.cols, gray.rows);
}

int identical_keypoints(const Features& a, const Features& b) {
  int same = 0;
  for (size_t i = 0; i < std::min(a.keypoints.size(), b.keypoints.size()); ++i)
    same += std::memcmp(&a.keypoints[i], &b.keypoints[i], sizeof(Keypoint)) == 0;
  return same;
}

// The CUDA result against the CPU's: the agreement of every parity test, and the CPU's
// conventions (canonical order without duplicates, one unit-length row per keypoint).
void expect_cpu_parity(const Features& reference, const Features& ours, const char* label) {
  const Agreement a = compare_features(to_cv_keypoints(reference), to_cv_descriptors(reference),
                                       to_cv_keypoints(ours), to_cv_descriptors(ours));
  std::printf(
      "%-22s cpu %5d cuda %5d identical %5d recall %.4f precision %.4f descriptor L2 %.5f\n", label,
      a.reference_count, a.candidate_count, identical_keypoints(reference, ours), a.recall,
      a.precision, a.median_descriptor_distance);
  ASSERT_GT(a.reference_count, 50) << label;
  // Recall and precision 1.0 on the six images: the floors sit just under.
  EXPECT_GE(a.recall, 0.995) << label;
  EXPECT_GE(a.precision, 0.995) << label;
  EXPECT_LE(a.median_descriptor_distance, 0.02) << label;
  EXPECT_EQ(ours.descriptor_size, reference.descriptor_size) << label;
  EXPECT_EQ(ours.descriptor_row_count(), static_cast<int>(ours.keypoints.size())) << label;
  EXPECT_TRUE(std::is_sorted(ours.keypoints.begin(), ours.keypoints.end(), keypoint_canonical_less))
      << label;
  EXPECT_EQ(std::adjacent_find(ours.keypoints.begin(), ours.keypoints.end(), keypoint_same_feature),
            ours.keypoints.end())
      << label;
  EXPECT_FALSE(ours.overflowed) << label;
  EXPECT_EQ(ours.detected_count, static_cast<int>(ours.keypoints.size())) << label;
}

class CudaSurfParity : public CudaSurf, public ::testing::WithParamInterface<std::string> {};

TEST_P(CudaSurfParity, MatchesCpuBackend) {
  const cv::Mat gray = load_gray(GetParam());
  ASSERT_FALSE(gray.empty());
  CudaSurfExtractor gpu{SurfParams{}};
  expect_cpu_parity(cpu_surf(gray), extract(gpu, gray), GetParam().c_str());
}

INSTANTIATE_TEST_SUITE_P(RealImages, CudaSurfParity, ::testing::ValuesIn(parity_image_names()),
                         [](const auto& info) {
                           return info.param.substr(0, info.param.find('.'));
                         });

// Other octave and layer counts change which octaves' integral image tiles fit in shared memory
// (more layers: octave 1 reads through the cache instead) and how many layers each thread takes.
TEST_F(CudaSurf, OctaveAndLayerCountsMatchCpuBackend) {
  const cv::Mat source = load_gray("astronaut.png");
  ASSERT_FALSE(source.empty());
  cv::Mat gray;
  cv::resize(source, gray, cv::Size(1280, 960), 0, 0, cv::INTER_CUBIC);
  for (const auto& counts : std::vector<std::pair<int, int>>{{5, 5}, {2, 1}, {6, 2}}) {
    SurfParams params;
    params.n_octaves = counts.first;
    params.n_octave_layers = counts.second;
    CudaSurfExtractor gpu(params);
    const std::string label =
        "octaves " + std::to_string(counts.first) + " layers " + std::to_string(counts.second);
    expect_cpu_parity(cpu_surf(gray, params), extract(gpu, gray), label.c_str());
  }
}

// As CudaFrames.ReusedFeaturesHoldExactlyEachFramesResult: one Features through frames of other
// sizes, a frame without keypoints and extractors without or with longer descriptors.
TEST_F(CudaSurf, ReusedFeaturesHoldExactlyEachFramesResult) {
  const cv::Mat gray = load_gray("astronaut.png");
  ASSERT_FALSE(gray.empty());
  const cv::Mat small = resized(gray, 320, 240);
  const cv::Mat tiny = resized(gray, 8, 8);
  SurfParams extended_params, bare_params;
  extended_params.extended = true;
  bare_params.descriptor = DescriptorFormat::kNone;
  CudaSurfExtractor plain{SurfParams{}}, extended{extended_params}, bare{bare_params};
  const std::vector<std::pair<CudaSurfExtractor*, const cv::Mat*>> sequence = {
      {&plain, &gray},  {&plain, &small}, {&plain, &tiny}, {&extended, &gray},
      {&plain, &small}, {&bare, &gray},   {&plain, &gray}};
  expect_reused_features_hold_each_result(sequence);
}

TEST_F(CudaSurf, UprightExtendedAndKeypointOnlyVariantsMatchCpuBackend) {
  const cv::Mat gray = load_gray("astronaut.png");
  ASSERT_FALSE(gray.empty());
  SurfParams upright;
  upright.upright = true;
  CudaSurfExtractor upright_gpu(upright);
  const Features upright_ours = extract(upright_gpu, gray);
  expect_cpu_parity(cpu_surf(gray, upright), upright_ours, "astronaut upright");
  for (const Keypoint& k : upright_ours.keypoints)
    ASSERT_EQ(k.angle, kSurfUprightAngle);

  SurfParams extended;
  extended.extended = true;
  CudaSurfExtractor extended_gpu(extended);
  const Features extended_ours = extract(extended_gpu, gray);
  EXPECT_EQ(extended_ours.descriptor_size, kSurfExtendedDescriptorSize);
  expect_cpu_parity(cpu_surf(gray, extended), extended_ours, "astronaut extended");

  SurfParams bare;
  bare.descriptor = DescriptorFormat::kNone;
  CudaSurfExtractor bare_gpu(bare);
  const Features bare_ours = extract(bare_gpu, gray);
  EXPECT_EQ(bare_ours.descriptor_size, 0);
  EXPECT_TRUE(bare_ours.float_descriptors.empty());
  CudaSurfExtractor plain_gpu{SurfParams{}};
  const Features plain = extract(plain_gpu, gray);
  ASSERT_EQ(bare_ours.keypoints.size(), plain.keypoints.size());
  EXPECT_EQ(0, std::memcmp(bare_ours.keypoints.data(), plain.keypoints.data(),
                           sizeof(Keypoint) * plain.keypoints.size()));
  EXPECT_EQ(bare_gpu.device_features().descriptors, nullptr);
}

TEST_F(CudaSurf, ByteDescriptorsAreRefused) {
  for (DescriptorFormat format : {DescriptorFormat::kUint8, DescriptorFormat::kRootSift}) {
    SurfParams params;
    params.descriptor = format;
    EXPECT_EQ(ErrorCode::kInvalidArgument, code_of([&] { CudaSurfExtractor gpu(params); }));
  }
}

TEST_F(CudaSurf, TenRunsAreBitIdentical) {
  const cv::Mat gray = load_gray("astronaut.png");
  ASSERT_FALSE(gray.empty());
  CudaSurfExtractor gpu{SurfParams{}};
  const Features first = extract(gpu, gray);
  ASSERT_GT(first.keypoints.size(), 300u);
  for (int run = 1; run < 10; ++run)
    ASSERT_TRUE(bit_identical(first, extract(gpu, gray))) << "run " << run;
  CudaSurfExtractor fresh{SurfParams{}};
  EXPECT_TRUE(bit_identical(first, extract(fresh, gray)));
}

TEST_F(CudaSurf, ConcurrentExtractorsOnTwoStreamsEqualSerialResults) {
  const cv::Mat a = load_gray("coffee.png");
  const cv::Mat b = load_gray("camera.png");
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  CudaSurfExtractor first{SurfParams{}};
  CudaSurfExtractor second{SurfParams{}};
  const Features serial_a = extract(first, a);
  const Features serial_b = extract(second, b);

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
    EXPECT_TRUE(bit_identical(serial_a, parallel_a[i])) << "frame " << i;
    EXPECT_TRUE(bit_identical(serial_b, parallel_b[i])) << "frame " << i;
  }
}

TEST_F(CudaSurf, TinyOddAndFlatFramesAgreeWithTheCpuBackend) {
  CudaSurfExtractor gpu{SurfParams{}};
  const cv::Mat gray = load_gray("camera.png");
  ASSERT_FALSE(gray.empty());
  for (cv::Size size : {cv::Size(1, 1), cv::Size(2, 2), cv::Size(7, 5), cv::Size(16, 16),
                        cv::Size(33, 17), cv::Size(333, 1), cv::Size(641, 479)}) {
    const cv::Mat frame = resized(gray, size.width, size.height);
    const Features ours = extract(gpu, frame);
    const Features reference = cpu_surf(frame);
    if (size.area() <= 35) {
      EXPECT_TRUE(ours.keypoints.empty()) << size;
    }
    const Agreement a =
        compare_features(to_cv_keypoints(reference), cv::Mat(), to_cv_keypoints(ours), cv::Mat());
    EXPECT_GE(a.recall, 0.98) << size;
    EXPECT_GE(a.precision, 0.98) << size;
  }
  const cv::Mat flat(480, 640, CV_8U, cv::Scalar(128));
  const Features none = extract(gpu, flat);
  EXPECT_TRUE(none.keypoints.empty());
  EXPECT_FALSE(none.overflowed);
}

TEST_F(CudaSurf, LargeFrameWorksAndHugeFrameIsRefusedBeforeAllocating) {
  const cv::Mat big = resized(load_gray("astronaut.png"), 4096, 4096);
  CudaSurfExtractor gpu{SurfParams{}};
  const Features f = extract(gpu, big);
  EXPECT_GT(f.keypoints.size(), 1000u);
  const size_t reserved = gpu.reserved_device_bytes();
  const auto huge = [&](int width, int height) {
    Features out;
    gpu.extract(FrameView{big.data, static_cast<size_t>(width), width, height, PixelFormat::kGray8,
                          MemoryKind::kHost},
                stream_.get(), &out);
  };
  EXPECT_EQ(ErrorCode::kFrameTooLarge, code_of([&] { huge(100000, 40); }));
  EXPECT_EQ(ErrorCode::kFrameTooLarge, code_of([&] { huge(20000, 20000); }));
  EXPECT_EQ(reserved, gpu.reserved_device_bytes());
  EXPECT_TRUE(bit_identical(f, extract(gpu, big)));
}

TEST_F(CudaSurf, OutOfDeviceMemoryIsAnErrorAndTheExtractorRecovers) {
  const cv::Mat big = resized(load_gray("astronaut.png"), 4096, 4096);
  CudaSurfExtractor gpu{SurfParams{}};
  EXPECT_EQ(ErrorCode::kOutOfMemory, code_with_device_memory_taken([&] { extract(gpu, big); }));
  const Features after = extract(gpu, big);
  EXPECT_GT(after.keypoints.size(), 1000u);
  CudaSurfExtractor fresh{SurfParams{}};
  EXPECT_TRUE(bit_identical(after, extract(fresh, big)));
}

// Noise without a threshold has ~170000 maxima, past the initial candidate capacity (65536):
// the extractor grows its lists and detects again rather than losing candidates.
TEST_F(CudaSurf, ManyCandidatesGrowTheListsAndMatchTheCpuBackend) {
  cv::Mat noise(2048, 2048, CV_8U);
  cv::RNG(7).fill(noise, cv::RNG::UNIFORM, 0, 256);
  SurfParams params;
  params.hessian_threshold = 0;
  params.max_keypoints = 1 << 22;
  CudaSurfExtractor gpu(params);
  const Features ours = extract(gpu, noise);
  EXPECT_GT(ours.keypoints.size(), 65536u);
  expect_cpu_parity(cpu_surf(noise, params), ours, "noise 2048, threshold 0");
  EXPECT_TRUE(bit_identical(ours, extract(gpu, noise)));
}

// The canonical order bins keypoints by pixel column and ranks those sharing one: identical blobs
// stacked in columns give runs of keypoints with equal x, which must come out as on the CPU.
TEST_F(CudaSurf, KeypointsSharingAColumnKeepTheCanonicalOrder) {
  cv::Mat blobs(480, 640, CV_8U, cv::Scalar(200));
  for (int x = 40; x < 600; x += 56) {
    for (int y = 20; y < 460; y += 18)
      cv::circle(blobs, cv::Point(x, y), 4, cv::Scalar(40), cv::FILLED);
  }
  CudaSurfExtractor gpu{SurfParams{}};
  const Features ours = extract(gpu, blobs);
  std::vector<int> per_column(blobs.cols + 1, 0);
  for (const Keypoint& k : ours.keypoints)
    ++per_column[std::clamp(static_cast<int>(k.x), 0, blobs.cols)];
  EXPECT_GE(*std::max_element(per_column.begin(), per_column.end()), 20);
  expect_cpu_parity(cpu_surf(blobs), ours, "stacked blobs");
  EXPECT_TRUE(bit_identical(ours, extract(gpu, blobs)));
}

// The caps keep exactly what the CPU's retain_strongest keeps of the uncapped result: the
// strongest, ties to the canonically first, in the canonical order, with their own descriptors.
TEST_F(CudaSurf, OverflowAndNfeaturesKeepTheStrongest) {
  const cv::Mat gray = load_gray("gravel.png");
  ASSERT_FALSE(gray.empty());
  CudaSurfExtractor unlimited{SurfParams{}};
  const Features all = extract(unlimited, gray);
  ASSERT_GT(all.keypoints.size(), 200u);
  const auto expected_rows = [&](const std::vector<Keypoint>& kept) {
    std::vector<float> rows;
    for (const Keypoint& k : kept) {
      const auto at = std::find_if(
          all.keypoints.begin(), all.keypoints.end(),
          [&](const Keypoint& other) { return std::memcmp(&k, &other, sizeof(Keypoint)) == 0; });
      const size_t row = at - all.keypoints.begin();
      rows.insert(rows.end(), all.float_descriptors.begin() + row * all.descriptor_size,
                  all.float_descriptors.begin() + (row + 1) * all.descriptor_size);
    }
    return rows;
  };

  SurfParams capped;
  capped.max_keypoints = 50;
  CudaSurfExtractor capped_gpu(capped);
  const Features kept = extract(capped_gpu, gray);
  EXPECT_TRUE(kept.overflowed);
  EXPECT_EQ(kept.detected_count, static_cast<int>(all.keypoints.size()));
  std::vector<Keypoint> strongest = all.keypoints;
  retain_strongest(&strongest, 50);
  ASSERT_EQ(kept.keypoints.size(), 50u);
  EXPECT_EQ(0, std::memcmp(kept.keypoints.data(), strongest.data(), sizeof(Keypoint) * 50));
  EXPECT_EQ(kept.float_descriptors, expected_rows(strongest));

  SurfParams limited;
  limited.nfeatures = 100;
  CudaSurfExtractor limited_gpu(limited);
  const Features best = extract(limited_gpu, gray);
  EXPECT_FALSE(best.overflowed);
  EXPECT_EQ(best.detected_count, 100);
  strongest = all.keypoints;
  retain_strongest(&strongest, 100);
  ASSERT_EQ(best.keypoints.size(), 100u);
  EXPECT_EQ(0, std::memcmp(best.keypoints.data(), strongest.data(), sizeof(Keypoint) * 100));
  EXPECT_EQ(best.float_descriptors, expected_rows(strongest));
  for (int run = 1; run < 5; ++run)
    ASSERT_TRUE(bit_identical(best, extract(limited_gpu, gray)));
}

TEST_F(CudaSurf, PinnedAndPitchedDeviceInputEqualPageableInput) {
  const cv::Mat gray = load_gray("coins.png");
  ASSERT_FALSE(gray.empty());
  CudaSurfExtractor gpu{SurfParams{}};
  const Features pageable = extract(gpu, gray);
  ASSERT_GT(pageable.keypoints.size(), 100u);

  void* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(&pinned, gray.total()), cudaSuccess);
  std::memcpy(pinned, gray.data, gray.total());
  Features from_pinned;
  gpu.extract(FrameView{pinned, static_cast<size_t>(gray.cols), gray.cols, gray.rows,
                        PixelFormat::kGray8, MemoryKind::kHost},
              stream_.get(), &from_pinned);
  cudaFreeHost(pinned);
  EXPECT_TRUE(bit_identical(pageable, from_pinned));

  void* device = nullptr;
  size_t pitch = 0;
  ASSERT_EQ(cudaMallocPitch(&device, &pitch, gray.cols + 3, gray.rows), cudaSuccess);
  ASSERT_EQ(cudaMemcpy2D(device, pitch, gray.data, gray.step, gray.cols, gray.rows,
                         cudaMemcpyHostToDevice),
            cudaSuccess);
  Features from_device;
  gpu.extract(
      FrameView{device, pitch, gray.cols, gray.rows, PixelFormat::kGray8, MemoryKind::kDevice},
      stream_.get(), &from_device);
  EXPECT_TRUE(bit_identical(pageable, from_device));

  const DeviceFeatures on_device = gpu.device_features();
  ASSERT_EQ(on_device.count, static_cast<int>(from_device.keypoints.size()));
  ASSERT_EQ(on_device.descriptor_size, kSurfDescriptorSize);
  std::vector<Keypoint> keypoints(on_device.count);
  std::vector<float> descriptors(static_cast<size_t>(on_device.count) * kSurfDescriptorSize);
  ASSERT_EQ(cudaMemcpy(keypoints.data(), on_device.keypoints, sizeof(Keypoint) * keypoints.size(),
                       cudaMemcpyDeviceToHost),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpy(descriptors.data(), on_device.descriptors,
                       sizeof(float) * descriptors.size(), cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_EQ(0, std::memcmp(keypoints.data(), from_device.keypoints.data(),
                           sizeof(Keypoint) * keypoints.size()));
  EXPECT_EQ(descriptors, from_device.float_descriptors);

  EXPECT_EQ(ErrorCode::kInvalidArgument, code_of([&] {
              Features f;
              gpu.extract(FrameView{gray.data, gray.step, gray.cols, gray.rows, PixelFormat::kGray8,
                                    MemoryKind::kDevice},
                          stream_.get(), &f);
            }));
  cudaFree(device);
}

TEST_F(CudaSurf, ColourFormatsConvertLikeOpenCv) {
  const cv::Mat bgr = load_bgr("astronaut.png");
  ASSERT_FALSE(bgr.empty());
  cv::Mat gray, rgb, bgra, rgbx;
  cv::cvtColor(bgr, gray, cv::COLOR_BGR2GRAY);
  cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  cv::cvtColor(bgr, bgra, cv::COLOR_BGR2BGRA);
  cv::cvtColor(bgr, rgbx, cv::COLOR_BGR2RGBA);
  CudaSurfExtractor gpu{SurfParams{}};
  const Features expected = extract(gpu, gray);
  ASSERT_GT(expected.keypoints.size(), 300u);
  EXPECT_TRUE(bit_identical(expected, extract(gpu, bgr, PixelFormat::kBgr8)));
  EXPECT_TRUE(bit_identical(expected, extract(gpu, rgb, PixelFormat::kRgb8)));
  EXPECT_TRUE(bit_identical(expected, extract(gpu, bgra, PixelFormat::kBgrx8)));
  EXPECT_TRUE(bit_identical(expected, extract(gpu, rgbx, PixelFormat::kRgba8)));
}

TEST_F(CudaSurf, ResolutionChangeRebuildsBuffers) {
  const cv::Mat gray = load_gray("brick.png");
  ASSERT_FALSE(gray.empty());
  const cv::Mat small = resized(gray, 320, 240);
  CudaSurfExtractor reused{SurfParams{}};
  const Features first = extract(reused, gray);
  const size_t big_bytes = reused.reserved_device_bytes();
  const Features second = extract(reused, small);
  EXPECT_LT(reused.reserved_device_bytes(), big_bytes);
  EXPECT_TRUE(bit_identical(first, extract(reused, gray)));
  CudaSurfExtractor fresh{SurfParams{}};
  EXPECT_TRUE(bit_identical(second, extract(fresh, small)));
}

}  // namespace
}  // namespace gpusift::testing
