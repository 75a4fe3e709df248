// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA matcher against the CPU matcher: the same matches bit for bit (query, train and
// distance) for every descriptor format, real and random sets up to 4096 x 4096, sets that force
// the exhaustive path, descriptors in device memory; the same RANSAC estimates bit for bit; the
// same argument errors; recovery after running out of device memory.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "gpu_fixture.h"
#include "gpusift/cpu_matcher.h"
#include "gpusift/cuda_matcher.h"
#include "gpusift/error.h"
#include "gpusift/matcher.h"
#include "gpusift/ransac.h"
#include "match_data.h"

namespace gpusift::testing {
namespace {

constexpr float kRatio = 0.8f;

// A descriptor set copied into device memory for as long as the object lives.
class DeviceCopy {
 public:
  explicit DeviceCopy(const DescriptorSet& set) : view_(set.view()) {
    const size_t bytes = std::max<size_t>(set.value_bytes(), 1);
    if (cudaMalloc(&data_, bytes) != cudaSuccess)
      throw std::runtime_error("cudaMalloc failed");
    cudaMemcpy(data_, set.data(), set.value_bytes(), cudaMemcpyHostToDevice);
    cudaDeviceSynchronize();  // from pageable memory the copy may return before its DMA lands
    view_.data = data_;
    view_.memory = MemoryKind::kDevice;
  }
  ~DeviceCopy() { cudaFree(data_); }
  DeviceCopy(const DeviceCopy&) = delete;
  DeviceCopy& operator=(const DeviceCopy&) = delete;
  const DescriptorSetView& view() const { return view_; }

 private:
  void* data_ = nullptr;
  DescriptorSetView view_;
};

class CudaMatch : public CudaTest {
 protected:
  std::vector<Match> gpu_matches(const DescriptorSetView& q, const DescriptorSetView& t,
                                 MatchParams params) {
    std::vector<Match> out;
    gpu_.match(q, t, params, stream_.get(), &out);
    return out;
  }

  // CUDA equals CPU, bit for bit, with and without cross-checking; returns the CPU's matches.
  std::vector<Match> expect_cpu_identity(const DescriptorSet& q, const DescriptorSet& t,
                                         const std::string& label, float ratio = kRatio) {
    std::vector<Match> reference;
    for (bool cross_check : {false, true}) {
      const MatchParams params{ratio, cross_check};
      cpu_.match(q.view(), t.view(), params, &reference);
      const std::vector<Match> ours = gpu_matches(q.view(), t.view(), params);
      EXPECT_TRUE(bit_identical(ours, reference))
          << label << (cross_check ? " cross-checked" : "") << ": cuda " << ours.size()
          << " matches, cpu " << reference.size();
      std::printf("%-28s %5d x %5d %s: %5zu matches, exhaustive rows %d\n", label.c_str(), q.count,
                  t.count, cross_check ? "cross" : "ratio", reference.size(),
                  gpu_.last_exhaustive_rows());
    }
    return reference;
  }

  CpuMatcher cpu_;
  CudaMatcher gpu_;
};

struct ImagePair {
  cv::Mat original, moved;
};

ImagePair image_pair(const std::string& name) {
  const cv::Mat gray = load_gray(name);
  return {gray, warped(gray, test_homography(gray.size()))};
}

TEST_F(CudaMatch, RealSiftEqualsCpuForEveryFormat) {
  for (const std::string& name : parity_image_names()) {
    const ImagePair images = image_pair(name);
    for (DescriptorFormat format :
         {DescriptorFormat::kFloat, DescriptorFormat::kUint8, DescriptorFormat::kRootSift}) {
      const DescriptorSet a = sift_set(images.original, format);
      const DescriptorSet b = sift_set(images.moved, format);
      const std::vector<Match> matches =
          expect_cpu_identity(a, b, name + " " + descriptor_format_name(format));
      EXPECT_GT(matches.size(), 50u);
    }
  }
}

TEST_F(CudaMatch, RealSurfEqualsCpu) {
  for (const std::string name : {"astronaut.png", "coffee.png", "brick.png"}) {
    const ImagePair images = image_pair(name);
    for (bool extended : {false, true}) {
      const DescriptorSet a = surf_set(images.original, extended);
      const DescriptorSet b = surf_set(images.moved, extended);
      expect_cpu_identity(a, b, name + (extended ? " surf128" : " surf64"));
    }
  }
}

// 4096 real SIFT descriptors a side: the features of all test images, then of their warps.
TEST_F(CudaMatch, Real4096x4096EqualsCpu) {
  DescriptorSet a, b;
  for (const std::string& name : parity_image_names()) {
    const ImagePair images = image_pair(name);
    a.append(sift_set(images.original));
    b.append(sift_set(images.moved));
  }
  ASSERT_GE(a.count, 4096);
  ASSERT_GE(b.count, 4096);
  expect_cpu_identity(a.first(4096), b.first(4096), "real sift 4096");
}

TEST_F(CudaMatch, Random4096x4096EqualsCpu) {
  const DescriptorSet a = random_unit_set(4096, 128, 1), b = random_unit_set(4096, 128, 2);
  expect_cpu_identity(a, b, "random 4096", 0.95f);
  const DescriptorSet c = random_byte_set(4096, 128, 3), d = random_byte_set(4096, 128, 4);
  expect_cpu_identity(c, d, "random bytes 4096", 0.95f);
}

// Sizes that are no multiple of a chunk, counts that are no multiple of a tile or block.
TEST_F(CudaMatch, OddSizesAndCountsEqualCpu) {
  for (int size : {1, 7, 33, 64, 65, 100, 128}) {
    for (int count : {1, 2, 63, 129, 1000}) {
      const DescriptorSet a = random_unit_set(count, size, size * 7 + count);
      const DescriptorSet b = random_unit_set(count + 37, size, size * 13 + count);
      expect_cpu_identity(a, b, "floats size " + std::to_string(size), 0.95f);
      const DescriptorSet c = random_byte_set(count, size, size * 17 + count);
      const DescriptorSet d = random_byte_set(count + 37, size, size * 19 + count);
      expect_cpu_identity(c, d, "bytes size " + std::to_string(size), 0.95f);
    }
  }
}

// Far outside unit length: the staging's scaling keeps fp16 in range and the bound valid; past
// 2^100 in squared norm (and at overflow) every row is scanned exactly.
TEST_F(CudaMatch, LargeAndTinyMagnitudesEqualCpu) {
  for (float scale : {512.f, 1e4f, 1e18f, 1e20f, 1e-3f, 1e-20f, 1e-30f}) {
    DescriptorSet a = random_unit_set(700, 128, 5), b = random_unit_set(900, 128, 6);
    for (float& x : a.floats)
      x *= scale;
    for (float& x : b.floats)
      x *= scale;
    expect_cpu_identity(a, b, "scale " + std::to_string(scale), 0.95f);
  }
}

TEST_F(CudaMatch, EmptyAndSingleRowSetsEqualCpu) {
  const DescriptorSet a = random_unit_set(300, 128, 7), one = random_unit_set(1, 128, 8);
  expect_cpu_identity(a, one, "one train row");
  expect_cpu_identity(one, a, "one query row");
  expect_cpu_identity(one, one, "one to one");
  std::vector<Match> out = {Match{1, 2, 3.f}};
  gpu_.match(a.first(0).view(), a.view(), MatchParams{}, stream_.get(), &out);
  EXPECT_TRUE(out.empty());
  gpu_.match(a.view(), a.first(0).view(), MatchParams{0.8f, true}, stream_.get(), &out);
  EXPECT_TRUE(out.empty());
}

// Many equal rows: the screening cannot settle the rows that are near them, which are then
// scanned exhaustively; ties go to the lowest index on both backends.
TEST_F(CudaMatch, DuplicatesTakeTheExhaustivePathAndEqualCpu) {
  DescriptorSet train = random_unit_set(2000, 128, 9);
  for (int i = 1; i < 200; ++i)
    std::copy_n(train.floats.begin(), 128, train.floats.begin() + i * 10 * 128);
  DescriptorSet query = random_unit_set(500, 128, 10);
  std::copy_n(train.floats.begin(), 128, query.floats.begin());  // equal to 200 train rows
  for (int k = 0; k < 128; ++k)
    query.floats[128 + k] = train.floats[k] * 0.999f;  // near them
  expect_cpu_identity(query, train, "duplicates", 1.5f);
  EXPECT_GE(gpu_.last_exhaustive_rows(), 2);
  DescriptorSet bytes_train = random_byte_set(1000, 128, 11);
  for (int i = 1; i < 100; ++i)
    std::copy_n(bytes_train.bytes.begin(), 128, bytes_train.bytes.begin() + i * 7 * 128);
  DescriptorSet bytes_query = random_byte_set(300, 128, 12);
  std::copy_n(bytes_train.bytes.begin(), 128, bytes_query.bytes.begin());
  expect_cpu_identity(bytes_query, bytes_train, "byte duplicates", 1.5f);
  EXPECT_GE(gpu_.last_exhaustive_rows(), 1);
}

TEST_F(CudaMatch, DeviceMemoryInputEqualsHostInput) {
  const ImagePair images = image_pair("astronaut.png");
  for (DescriptorFormat format : {DescriptorFormat::kFloat, DescriptorFormat::kUint8}) {
    const DescriptorSet a = sift_set(images.original, format);
    const DescriptorSet b = sift_set(images.moved, format);
    const DeviceCopy da(a), db(b);
    for (bool cross_check : {false, true}) {
      const MatchParams params{kRatio, cross_check};
      const std::vector<Match> host = gpu_matches(a.view(), b.view(), params);
      EXPECT_TRUE(bit_identical(gpu_matches(da.view(), db.view(), params), host));
      EXPECT_TRUE(bit_identical(gpu_matches(da.view(), b.view(), params), host));
      EXPECT_TRUE(bit_identical(gpu_matches(a.view(), db.view(), params), host));
    }
  }
}

// One matcher through sets of changing sizes and formats (buffers grown and reused) and a
// reused output vector gives what a fresh matcher gives.
TEST_F(CudaMatch, ReusedMatcherAndOutputEqualFreshOnes) {
  std::vector<Match> reused(5000, Match{9, 9, 9.f});
  for (int count : {3000, 100, 4096, 700}) {
    for (bool bytes : {false, true}) {
      const DescriptorSet a =
          bytes ? random_byte_set(count, 128, count) : random_unit_set(count, 128, count);
      const DescriptorSet b = bytes ? random_byte_set(count + 5, 128, count + 1)
                                    : random_unit_set(count + 5, 128, count + 1);
      gpu_.match(a.view(), b.view(), MatchParams{0.95f, true}, stream_.get(), &reused);
      CudaMatcher fresh;
      std::vector<Match> expected;
      fresh.match(a.view(), b.view(), MatchParams{0.95f, true}, stream_.get(), &expected);
      EXPECT_TRUE(bit_identical(reused, expected)) << count;
    }
  }
}

TEST_F(CudaMatch, BadArgumentsAreRejectedAsOnTheCpu) {
  const DescriptorSet floats = random_unit_set(4, 128, 13), bytes = random_byte_set(4, 128, 14);
  std::vector<Match> out;
  auto code = [&](DescriptorSetView q, DescriptorSetView t, MatchParams p = MatchParams{}) {
    return code_of([&] { gpu_.match(q, t, p, stream_.get(), &out); });
  };
  DescriptorSetView none = floats.view();
  none.format = DescriptorFormat::kNone;
  EXPECT_EQ(code(none, floats.view()), ErrorCode::kInvalidArgument);
  EXPECT_EQ(code(floats.view(), bytes.view()), ErrorCode::kInvalidArgument);
  DescriptorSetView shorter = floats.view();
  shorter.size = 64;
  EXPECT_EQ(code(floats.view(), shorter), ErrorCode::kInvalidArgument);
  DescriptorSetView too_long = floats.view();
  too_long.size = kMaxMatchDescriptorSize + 1;
  EXPECT_EQ(code(too_long, too_long), ErrorCode::kInvalidArgument);
  DescriptorSetView null = floats.view();
  null.data = nullptr;
  EXPECT_EQ(code(null, floats.view()), ErrorCode::kInvalidArgument);
  EXPECT_EQ(code(floats.view(), floats.view(), MatchParams{-1.f, false}),
            ErrorCode::kInvalidArgument);
  // Still usable afterwards.
  expect_cpu_identity(floats, floats, "after errors");
}

TEST_F(CudaMatch, OutOfDeviceMemoryIsAnErrorAndTheMatcherRecovers) {
  // 2^20 rows of 512 bytes: staged and copied, more than the hog leaves.
  DescriptorSet huge;
  huge.count = 1 << 20;
  huge.size = 128;
  huge.floats.assign(static_cast<size_t>(huge.count) * huge.size, 0.5f);
  const DescriptorSet small = random_unit_set(50, 128, 15);
  std::vector<Match> out(3, Match{1, 1, 1.f});
  EXPECT_EQ(ErrorCode::kOutOfMemory, code_with_device_memory_taken([&] {
              gpu_.match(huge.view(), small.view(), MatchParams{}, stream_.get(), &out);
            }));
  EXPECT_TRUE(out.empty());
  const DescriptorSet a = random_unit_set(2000, 128, 16), b = random_unit_set(2100, 128, 17);
  expect_cpu_identity(a, b, "after out of memory", 0.95f);
}

// Matching and RANSAC through the factory, on its own stream.
TEST_F(CudaMatch, FactoryGivesTheCudaBackend) {
  for (Backend backend : {Backend::kCuda, Backend::kAuto}) {
    auto matcher = create_matcher(backend);
    EXPECT_EQ(matcher->backend(), Backend::kCuda);
    const DescriptorSet a = random_unit_set(500, 128, 18), b = random_unit_set(600, 128, 19);
    std::vector<Match> out, reference;
    matcher->match(a.view(), b.view(), MatchParams{0.95f, true}, &out);
    cpu_.match(a.view(), b.view(), MatchParams{0.95f, true}, &reference);
    EXPECT_TRUE(bit_identical(out, reference));
  }
  auto on_context = create_cuda_matcher_on_current_context();
  EXPECT_EQ(on_context->backend(), Backend::kCuda);
  const std::vector<double> truth = known_motion(MotionModel::kHomography);
  const SyntheticPairs data = synthetic_pairs(truth.data(), 300, 200, 0.5, 20);
  EXPECT_TRUE(bit_identical(on_context->estimate_motion(data.pairs, RansacParams{}),
                            cpu_.estimate_motion(data.pairs, RansacParams{})));
}

class CudaRansac : public CudaMatch {
 protected:
  void expect_identity(const std::vector<PointPair>& pairs, const RansacParams& params,
                       const std::string& label) {
    const MotionEstimate reference = cpu_.estimate_motion(pairs, params);
    const MotionEstimate ours = gpu_.estimate_motion(pairs, params, stream_.get());
    EXPECT_TRUE(bit_identical(ours, reference))
        << label << ": found " << ours.found << "/" << reference.found << " inliers "
        << ours.inliers << "/" << reference.inliers;
  }
};

TEST_F(CudaRansac, EveryModelEqualsCpu) {
  for (MotionModel model : all_motion_models()) {
    const std::vector<double> truth = known_motion(model);
    for (uint32_t seed : {1u, 2u, 3u}) {
      for (int outliers : {0, 150, 600}) {
        const SyntheticPairs data = synthetic_pairs(truth.data(), 300, outliers, 0.7, seed);
        RansacParams params;
        params.model = model;
        params.seed = seed * 1000 + outliers;
        expect_identity(data.pairs, params,
                        std::string(model_name(model)) + " seed " + std::to_string(seed) +
                            " outliers " + std::to_string(outliers));
        const MotionEstimate e = gpu_.estimate_motion(data.pairs, params, stream_.get());
        EXPECT_TRUE(e.found);
        EXPECT_LT(corner_error(e.matrix, truth.data(), 640, 480), 1.0);
      }
    }
  }
}

TEST_F(CudaRansac, RealMatchesEqualCpu) {
  const ImagePair images = image_pair("astronaut.png");
  const DescriptorSet a = sift_set(images.original), b = sift_set(images.moved);
  std::vector<Match> matches;
  gpu_.match(a.view(), b.view(), MatchParams{}, stream_.get(), &matches);
  std::vector<PointPair> pairs;
  point_pairs_from_matches(matches, a.keypoints, b.keypoints, &pairs);
  for (MotionModel model : all_motion_models()) {
    RansacParams params;
    params.model = model;
    for (int iterations : {1, 100, 512, 2000})
      for (float threshold : {0.5f, 3.f}) {
        params.iterations = iterations;
        params.threshold = threshold;
        expect_identity(pairs, params, model_name(model));
      }
  }
  const MotionEstimate e = gpu_.estimate_motion(pairs, RansacParams{}, stream_.get());
  ASSERT_TRUE(e.found);
  EXPECT_LE(corner_error(e.matrix, test_homography(images.original.size()).val,
                         images.original.cols, images.original.rows),
            1.0);
}

TEST_F(CudaRansac, DegenerateInputEqualsCpu) {
  const std::vector<double> truth = known_motion(MotionModel::kHomography);
  const SyntheticPairs data = synthetic_pairs(truth.data(), 5, 0, 0.0, 21);
  for (size_t n : {0, 1, 3, 4, 5}) {
    const std::vector<PointPair> pairs(data.pairs.begin(), data.pairs.begin() + n);
    for (MotionModel model : all_motion_models()) {
      RansacParams params;
      params.model = model;
      expect_identity(pairs, params, std::string(model_name(model)) + " n " + std::to_string(n));
    }
  }
  const std::vector<PointPair> same(100, PointPair{10, 20, 30, 40});
  std::vector<PointPair> line;
  for (int i = 0; i < 50; ++i)
    line.push_back(PointPair{float(i), float(2 * i), float(i + 3), float(2 * i - 1)});
  for (MotionModel model : all_motion_models()) {
    RansacParams params;
    params.model = model;
    expect_identity(same, params, "same");
    expect_identity(line, params, "line");
    EXPECT_FALSE(gpu_.estimate_motion(line, RansacParams{}, stream_.get()).found);
  }
  EXPECT_EQ(code_of([&] {
              gpu_.estimate_motion(line, RansacParams{MotionModel::kHomography, 0.f, 10, 0},
                                   stream_.get());
            }),
            ErrorCode::kInvalidArgument);
}

// Sizes that are no multiple of the exact distance's eight lanes, through the exhaustive scan.
TEST_F(CudaMatch, OddSizedDuplicatesTakeTheExhaustivePathAndEqualCpu) {
  for (int size : {7, 33, 65, 100}) {
    DescriptorSet train = random_unit_set(1500, size, size);
    for (int i = 1; i < 150; ++i)
      std::copy_n(train.floats.begin(), size, train.floats.begin() + i * 9 * size);
    DescriptorSet query = random_unit_set(400, size, size + 1);
    std::copy_n(train.floats.begin(), size, query.floats.begin());
    for (int k = 0; k < size; ++k)
      query.floats[size + k] = train.floats[k] * 0.999f;
    expect_cpu_identity(query, train, "duplicates size " + std::to_string(size), 1.5f);
    EXPECT_GE(gpu_.last_exhaustive_rows(), 2) << size;
    DescriptorSet bytes_train = random_byte_set(900, size, size + 2);
    for (int i = 1; i < 90; ++i)
      std::copy_n(bytes_train.bytes.begin(), size, bytes_train.bytes.begin() + i * 7 * size);
    DescriptorSet bytes_query = random_byte_set(300, size, size + 3);
    std::copy_n(bytes_train.bytes.begin(), size, bytes_query.bytes.begin());
    expect_cpu_identity(bytes_query, bytes_train, "byte duplicates size " + std::to_string(size),
                        1.5f);
  }
}

class CudaMatchAndFit : public CudaMatch {
 protected:
  void expect_cpu_identity(const FitJob& job, const std::string& label) {
    MatchAndFitResult expected, ours;
    cpu_.match_and_fit(job.request, &expected);
    gpu_.begin_match_and_fit(job.request, stream_.get());
    gpu_.finish_match_and_fit(&ours);
    EXPECT_TRUE(bit_identical(ours, expected))
        << label << ": cuda " << ours.matches.size() << " matches, " << ours.motion.inliers
        << " inliers; cpu " << expected.matches.size() << ", " << expected.motion.inliers;
  }
};

TEST_F(CudaMatchAndFit, EveryModelAndSelectionEqualsCpu) {
  DescriptorSet a, b;
  for (const std::string& name : parity_image_names()) {
    const ImagePair images = image_pair(name);
    a.append(sift_set(images.original));
    b.append(sift_set(images.moved));
  }
  const DescriptorSet a4096 = a.first(4096), b4096 = b.first(4096);
  const ImagePair astronaut = image_pair("astronaut.png");
  const DescriptorSet c = sift_set(astronaut.original), d = sift_set(astronaut.moved);
  for (const auto& [query, train, label] :
       {std::tuple{&a4096, &b4096, "real 4096"}, std::tuple{&c, &d, "astronaut"},
        std::tuple{&d, &c, "astronaut reversed"}}) {
    for (MotionModel model : all_motion_models())
      for (bool one_per_train : {false, true})
        for (bool from_train : {false, true}) {
          FitJob job(*query, *train, model, one_per_train, from_train);
          job.request.ransac.seed = 11;
          expect_cpu_identity(job, std::string(label) + " " + model_name(model) +
                                       (one_per_train ? " one per train" : "") +
                                       (from_train ? " from train" : ""));
        }
  }
  FitJob cross(c, d, MotionModel::kHomography, true, true);
  cross.request.match.cross_check = true;
  expect_cpu_identity(cross, "cross-checked");
  const DeviceCopy dc(c), dd(d);
  FitJob on_device(c, d, MotionModel::kHomography, true, true);
  MatchAndFitResult from_host, from_device;
  gpu_.begin_match_and_fit(on_device.request, stream_.get());
  gpu_.finish_match_and_fit(&from_host);
  on_device.request.query = dc.view();
  on_device.request.train = dd.view();
  gpu_.begin_match_and_fit(on_device.request, stream_.get());
  gpu_.finish_match_and_fit(&from_device);
  EXPECT_TRUE(bit_identical(from_device, from_host));
  EXPECT_TRUE(from_device.motion.found);
  EXPECT_LE(
      corner_error(from_device.motion.matrix, test_homography(astronaut.original.size()).inv().val,
                   astronaut.original.cols, astronaut.original.rows),
      1.0);
}

TEST_F(CudaMatchAndFit, FewEmptyAndDegenerateJobsEqualCpu) {
  const DescriptorSet a = random_unit_set(300, 128, 31);
  for (int count : {0, 1, 2, 3, 4, 5}) {
    const DescriptorSet few = a.first(count);
    for (MotionModel model : all_motion_models()) {
      const std::string label = std::to_string(count) + " rows " + model_name(model);
      expect_cpu_identity(FitJob(few, a, model, false, false), label + " as query");
      expect_cpu_identity(FitJob(a, few, model, true, true), label + " as train");
      expect_cpu_identity(FitJob(few, few, model, true, false), label + " both");
    }
  }
  FitJob no_iterations(a, a, MotionModel::kHomography, false, false);
  no_iterations.request.ransac.iterations = 0;
  expect_cpu_identity(no_iterations, "no iterations");
  // Every point the same: matches, but no motion.
  DescriptorSet same = a;
  std::fill(same.keypoints.begin(), same.keypoints.end(), Keypoint{});
  expect_cpu_identity(FitJob(same, same, MotionModel::kHomography, false, false), "one point");
}

// Two matchers on two streams, their jobs in flight together, give what each gives alone.
TEST_F(CudaMatchAndFit, JobsOnTwoStreamsOverlapAndEqualSequentialOnes) {
  const ImagePair images = image_pair("coffee.png");
  const DescriptorSet a = sift_set(images.original), b = sift_set(images.moved);
  const FitJob forward(a, b, MotionModel::kHomography, true, false);
  const FitJob backward(b, a, MotionModel::kAffine, false, true);
  const OwnedCudaStream other_stream(device_);
  CudaMatcher other;
  MatchAndFitResult alone_forward, alone_backward, together_forward, together_backward;
  gpu_.begin_match_and_fit(forward.request, stream_.get());
  gpu_.finish_match_and_fit(&alone_forward);
  other.begin_match_and_fit(backward.request, other_stream.get());
  other.finish_match_and_fit(&alone_backward);
  for (int round = 0; round < 3; ++round) {
    gpu_.begin_match_and_fit(forward.request, stream_.get());
    other.begin_match_and_fit(backward.request, other_stream.get());
    other.finish_match_and_fit(&together_backward);
    gpu_.finish_match_and_fit(&together_forward);
    EXPECT_TRUE(bit_identical(together_forward, alone_forward)) << round;
    EXPECT_TRUE(bit_identical(together_backward, alone_backward)) << round;
  }
  EXPECT_TRUE(alone_forward.motion.found);
}

TEST_F(CudaMatchAndFit, OneJobAtATimeAndOutOfMemoryLeavesNoneBehind) {
  const DescriptorSet a = random_unit_set(200, 128, 41), b = random_unit_set(220, 128, 42);
  const FitJob job(a, b, MotionModel::kSimilarity, false, false);
  MatchAndFitResult result;
  EXPECT_EQ(code_of([&] { gpu_.finish_match_and_fit(&result); }), ErrorCode::kInvalidArgument);
  gpu_.begin_match_and_fit(job.request, stream_.get());
  EXPECT_EQ(code_of([&] { gpu_.begin_match_and_fit(job.request, stream_.get()); }),
            ErrorCode::kInvalidArgument);
  gpu_.finish_match_and_fit(&result);
  DescriptorSet huge;
  huge.count = 1 << 20;
  huge.size = 128;
  huge.floats.assign(static_cast<size_t>(huge.count) * huge.size, 0.5f);
  huge.keypoints.assign(static_cast<size_t>(huge.count), Keypoint{});
  const FitJob too_big(huge, b, MotionModel::kSimilarity, false, false);
  EXPECT_EQ(ErrorCode::kOutOfMemory, code_with_device_memory_taken([&] {
              gpu_.begin_match_and_fit(too_big.request, stream_.get());
            }));
  expect_cpu_identity(job, "after out of memory");
}

// Informational: the matcher's time on the test's GPU (gpusift-bench-match measures properly).
TEST_F(CudaMatch, Timing4096) {
  const DescriptorSet a = random_unit_set(4096, 128, 22), b = random_unit_set(4096, 128, 23);
  const DeviceCopy da(a), db(b);
  std::vector<Match> out;
  for (int i = 0; i < 5; ++i)
    gpu_.match(da.view(), db.view(), MatchParams{}, stream_.get(), &out);
  const auto start = std::chrono::steady_clock::now();
  constexpr int kRuns = 50;
  for (int i = 0; i < kRuns; ++i)
    gpu_.match(da.view(), db.view(), MatchParams{}, stream_.get(), &out);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() /
      kRuns;
  std::printf("4096 x 4096 float match from device memory: %.3f ms\n", ms);
}

}  // namespace
}  // namespace gpusift::testing
