// copy_in_parallel, copy_pieces_as_ready and copy_to_vector: every byte lands, at sizes below, at
// and above the point where the copy goes parallel, for any alignment, and with more or fewer
// threads; a piece is copied only once it is ready.
#include "gpusift/host_copy.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <thread>
#include <vector>

namespace gpusift::testing {
namespace {

std::vector<uint8_t> pattern(size_t bytes) {
  std::vector<uint8_t> v(bytes);
  for (size_t i = 0; i < bytes; ++i)
    v[i] = static_cast<uint8_t>(i * 131 + (i >> 9));
  return v;
}

TEST(HostCopy, EveryByteLandsAtEverySizeAndOffset) {
  for (size_t bytes :
       {size_t{0}, size_t{1}, size_t{4095}, size_t{256 * 1024 - 1}, size_t{256 * 1024},
        size_t{256 * 1024 + 7}, size_t{1024 * 1024 + 7}, size_t{3 * 1024 * 1024 + 13}}) {
    for (size_t offset : {size_t{0}, size_t{3}}) {
      const std::vector<uint8_t> source = pattern(bytes + offset);
      std::vector<uint8_t> target(bytes + 2 * offset + 1, 0xEE);
      copy_in_parallel(source.data() + offset, bytes, target.data() + 2 * offset);
      ASSERT_TRUE(std::equal(source.begin() + offset, source.end(), target.begin() + 2 * offset))
          << bytes << " bytes, offset " << offset;
      EXPECT_EQ(target.back(), 0xEE) << "wrote past the end: " << bytes << " bytes";
      if (offset > 0) {
        EXPECT_EQ(target[2 * offset - 1], 0xEE) << "wrote before the start: " << bytes << " bytes";
      }
    }
  }
}

TEST(HostCopy, SameResultWithOneOrManyThreads) {
  const std::vector<uint8_t> source = pattern(5 * 1024 * 1024 + 3);
  const int previous = omp_get_max_threads();
  for (int threads : {1, 2, 16}) {
    omp_set_num_threads(threads);
    std::vector<uint8_t> target(source.size());
    copy_in_parallel(source.data(), source.size(), target.data());
    EXPECT_EQ(target, source) << threads << " threads";
  }
  omp_set_num_threads(previous);
}

TEST(HostCopy, PiecesLandWholeOnlyOnceEachIsReady) {
  constexpr size_t kPiece = 64 * 1024;
  const std::vector<uint8_t> source = pattern(13 * kPiece + 5);
  std::vector<uint8_t> growing(source.size(), 0);
  const int pieces = 14;
  std::vector<std::atomic<int>> ready(pieces);
  // A writer fills the source piece by piece, marking each ready, as the device does.
  std::thread writer([&] {
    for (int p = 0; p < pieces; ++p) {
      const size_t first = p * kPiece, end = std::min(source.size(), first + kPiece);
      std::copy(source.begin() + first, source.begin() + end, growing.begin() + first);
      ready[p].store(1, std::memory_order_release);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  std::vector<uint8_t> target(source.size(), 0xEE);
  const bool complete =
      copy_pieces_as_ready(growing.data(), growing.size(), kPiece, target.data(), [&](int piece) {
        while (ready[piece].load(std::memory_order_acquire) == 0) {
        }
        return true;
      });
  writer.join();
  EXPECT_TRUE(complete);
  EXPECT_EQ(target, source);
}

TEST(HostCopy, PiecesStopWhenAWaitGivesUp) {
  const std::vector<uint8_t> source = pattern(10 * 4096);
  std::vector<uint8_t> target(source.size(), 0xEE);
  const bool complete = copy_pieces_as_ready(source.data(), source.size(), 4096, target.data(),
                                             [](int piece) { return piece < 3; });
  EXPECT_FALSE(complete);
  EXPECT_TRUE(
      copy_pieces_as_ready(source.data(), 0, 4096, target.data(), [](int) { return false; }));
}

TEST(HostCopy, VectorTakesTheSourceSizeWhetherGrowingOrShrinking) {
  std::vector<float> values(1000000);
  std::iota(values.begin(), values.end(), 0.5f);
  std::vector<float> out(7, -1.f);
  copy_to_vector(values.data(), values.size(), &out);
  EXPECT_EQ(out, values);
  copy_to_vector(values.data() + 10, 100, &out);
  EXPECT_EQ(out, std::vector<float>(values.begin() + 10, values.begin() + 110));
  copy_to_vector(values.data(), 0, &out);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace gpusift::testing
