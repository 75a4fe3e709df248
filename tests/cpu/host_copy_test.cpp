// SPDX-License-Identifier: LGPL-2.1-or-later
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

// A writer fills `source`'s copy piece by piece, marking each ready, as the device does.
class PieceWriter {
 public:
  PieceWriter(const std::vector<uint8_t>& source, size_t piece_bytes)
      : written(source.size(), 0), ready_((source.size() + piece_bytes - 1) / piece_bytes) {
    thread_ = std::thread([this, &source, piece_bytes] {
      for (size_t p = 0; p < ready_.size(); ++p) {
        const size_t first = p * piece_bytes, end = std::min(source.size(), first + piece_bytes);
        std::copy(source.begin() + first, source.begin() + end, written.begin() + first);
        ready_[p].store(1, std::memory_order_release);
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      running_ = false;
    });
  }
  ~PieceWriter() { thread_.join(); }
  bool ready(int piece) const { return ready_[piece].load(std::memory_order_acquire) != 0; }
  bool running() const { return running_; }

  std::vector<uint8_t> written;

 private:
  std::vector<std::atomic<int>> ready_;
  std::atomic<bool> running_{true};
  std::thread thread_;
};

TEST(HostCopy, PiecesLandWholeOnlyOnceEachIsReady) {
  constexpr size_t kPiece = 64 * 1024;
  const std::vector<uint8_t> source = pattern(13 * kPiece + 5);
  for (const bool nested : {false, true}) {
    PieceWriter writer(source, kPiece);
    std::vector<uint8_t> target(source.size(), 0xEE);
    bool complete = false;
    std::atomic<bool> queried_elsewhere{false};
    // Inside another active parallel region the caller copies alone.
    const int levels = omp_get_max_active_levels();
    omp_set_max_active_levels(1);
#pragma omp parallel num_threads(2) if (nested)
    if (omp_get_thread_num() == 0) {
      const std::thread::id caller = std::this_thread::get_id();
      complete = copy_pieces_as_ready(
          writer.written.data(), source.size(), kPiece, target.data(),
          [&](int piece) { return writer.ready(piece); },
          [&] {
            // The query stands for a CUDA call, which belongs on the caller's thread.
            if (std::this_thread::get_id() != caller)
              queried_elsewhere = true;
            return writer.running();
          });
    }
    omp_set_max_active_levels(levels);
    EXPECT_TRUE(complete) << (nested ? "nested" : "alone");
    EXPECT_FALSE(queried_elsewhere) << (nested ? "nested" : "alone");
    EXPECT_EQ(target, source) << (nested ? "nested" : "alone");
  }
}

TEST(HostCopy, PiecesGiveUpOnlyWhenTheWriterStopsWithAPieceMissing) {
  const std::vector<uint8_t> source = pattern(10 * 4096);
  std::vector<uint8_t> target(source.size(), 0xEE);
  const auto stopped = [] { return false; };
  EXPECT_FALSE(copy_pieces_as_ready(
      source.data(), source.size(), 4096, target.data(), [](int piece) { return piece != 7; },
      stopped));
  EXPECT_TRUE(copy_pieces_as_ready(
      source.data(), source.size(), 4096, target.data(), [](int) { return true; }, stopped));
  EXPECT_EQ(target, source);
  EXPECT_TRUE(copy_pieces_as_ready(
      source.data(), 0, 4096, target.data(), [](int) { return false; }, stopped));
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
