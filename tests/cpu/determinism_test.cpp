// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend gives bit-identical results for the same frame, whatever ran before, however
// many OpenMP threads it has and whether other instances run at the same time.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <memory>
#include <thread>

#include "feature_identity.h"
#include "gpusift/cpu_sift.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

constexpr int kMinKeypoints = 300;

Features extract(CpuSiftExtractor& extractor, const cv::Mat& gray) {
  return extractor.extract(gray.data, gray.step, gray.cols, gray.rows);
}

Features extract_fresh(const cv::Mat& gray) {
  CpuSiftExtractor extractor{SiftParams{}};
  return extract(extractor, gray);
}

// Sets the OpenMP thread count for the calling thread and puts the previous one back.
class ScopedThreadCount {
 public:
  explicit ScopedThreadCount(int threads) : previous_(omp_get_max_threads()) {
    omp_set_num_threads(threads);
  }
  ~ScopedThreadCount() { omp_set_num_threads(previous_); }
  ScopedThreadCount(const ScopedThreadCount&) = delete;
  ScopedThreadCount& operator=(const ScopedThreadCount&) = delete;

 private:
  int previous_;
};

class Determinism : public ::testing::Test {
 protected:
  void SetUp() override {
    astronaut_ = load_gray("astronaut.png");
    chelsea_ = load_gray("chelsea.png");
    ASSERT_FALSE(astronaut_.empty());
    ASSERT_FALSE(chelsea_.empty());
    ASSERT_NE(astronaut_.size(), chelsea_.size());
  }
  cv::Mat astronaut_, chelsea_;
};

TEST_F(Determinism, SameFrameTwiceOnOneInstance) {
  CpuSiftExtractor extractor{SiftParams{}};
  const Features first = extract(extractor, astronaut_);
  ASSERT_GT(first.keypoints.size(), kMinKeypoints);
  ASSERT_EQ(first.descriptor_row_count(), static_cast<int>(first.keypoints.size()));
  EXPECT_TRUE(bit_identical(first, extract(extractor, astronaut_)));
}

TEST_F(Determinism, SeparateInstancesAgree) {
  const Features first = extract_fresh(astronaut_);
  ASSERT_GT(first.keypoints.size(), kMinKeypoints);
  EXPECT_TRUE(bit_identical(first, extract_fresh(astronaut_)));
}

TEST_F(Determinism, FrameOfAnotherSizeInBetweenChangesNothing) {
  CpuSiftExtractor extractor{SiftParams{}};
  const Features before = extract(extractor, astronaut_);
  ASSERT_GT(before.keypoints.size(), kMinKeypoints);
  const Features other = extract(extractor, chelsea_);
  ASSERT_GT(other.keypoints.size(), kMinKeypoints);
  EXPECT_TRUE(bit_identical(before, extract(extractor, astronaut_)));
  EXPECT_TRUE(bit_identical(other, extract_fresh(chelsea_)));
}

TEST_F(Determinism, IndependentOfThreadCount) {
  Features single;
  {
    ScopedThreadCount threads(1);
    single = extract_fresh(astronaut_);
  }
  ASSERT_GT(single.keypoints.size(), kMinKeypoints);
  EXPECT_TRUE(bit_identical(single, extract_fresh(astronaut_))) << "default thread count";
  // More threads than cores, and an odd count, change the split of rows between threads.
  for (int count : {2, 3, std::max(4, cpu_thread_count() * 2)}) {
    ScopedThreadCount threads(count);
    ASSERT_EQ(cpu_thread_count(), count);
    EXPECT_TRUE(bit_identical(single, extract_fresh(astronaut_))) << count << " threads";
  }
}

// An application may change the OpenMP thread count at any time, also after it made its
// extractor. Run in a child process, as a failure here can be a memory corruption.
TEST_F(Determinism, ThreadCountRaisedAfterConstruction) {
  const Features reference = extract_fresh(astronaut_);
  ASSERT_GT(reference.keypoints.size(), kMinKeypoints);
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  EXPECT_EXIT(
      {
        std::unique_ptr<CpuSiftExtractor> extractor;
        {
          ScopedThreadCount threads(1);
          extractor = std::make_unique<CpuSiftExtractor>(SiftParams{});
        }
        ScopedThreadCount threads(std::max(4, cpu_thread_count() * 2));
        const bool same = bit_identical(reference, extract(*extractor, astronaut_));
        std::exit(same ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(Determinism, ConcurrentInstancesGiveSerialResults) {
  const Features serial_astronaut = extract_fresh(astronaut_);
  const Features serial_chelsea = extract_fresh(chelsea_);
  ASSERT_GT(serial_astronaut.keypoints.size(), kMinKeypoints);
  ASSERT_GT(serial_chelsea.keypoints.size(), kMinKeypoints);

  constexpr int kRounds = 3;
  Features astronaut_results[kRounds], chelsea_results[kRounds];
  auto run = [](const cv::Mat& gray, Features* results) {
    CpuSiftExtractor extractor{SiftParams{}};
    for (int i = 0; i < kRounds; ++i)
      results[i] = extract(extractor, gray);
  };
  std::thread first(run, std::cref(astronaut_), astronaut_results);
  std::thread second(run, std::cref(chelsea_), chelsea_results);
  first.join();
  second.join();
  for (int i = 0; i < kRounds; ++i) {
    EXPECT_TRUE(bit_identical(serial_astronaut, astronaut_results[i])) << "round " << i;
    EXPECT_TRUE(bit_identical(serial_chelsea, chelsea_results[i])) << "round " << i;
  }
}

}  // namespace
}  // namespace gpusift::testing
