// SPDX-License-Identifier: LGPL-2.1-or-later
// The descriptor vectors that gpusiftfilter's metas take: a freed meta gives its vector back with
// its storage and size, from any thread and after the element's pool is gone, and the pool keeps
// only a few.
#include "gpusiftfilter/recycled_vectors.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace gpusift::testing {
namespace {

using gst::RecycledVectors;

TEST(RecycledVectors, AFreedBytesGivesItsVectorBackWithItsStorageAndSize) {
  RecycledVectors<float> pool;
  EXPECT_TRUE(pool.take().empty());
  std::vector<float> rows(1000, 2.5f);
  const float* storage = rows.data();
  GBytes* bytes = pool.wrap(std::move(rows));
  gsize size = 0;
  EXPECT_EQ(g_bytes_get_data(bytes, &size), storage);
  EXPECT_EQ(size, 1000 * sizeof(float));
  EXPECT_TRUE(pool.take().empty()) << "still held by the bytes";
  g_bytes_unref(bytes);
  const std::vector<float> back = pool.take();
  EXPECT_EQ(back.data(), storage);
  EXPECT_EQ(back.size(), 1000u);
  EXPECT_TRUE(pool.take().empty());
}

TEST(RecycledVectors, BytesFreedOnAnotherThreadAfterThePoolIsGone) {
  GBytes* bytes = nullptr;
  {
    RecycledVectors<uint8_t> pool;
    bytes = pool.wrap(std::vector<uint8_t>(300, 7));
  }
  std::thread other([bytes] { g_bytes_unref(bytes); });
  other.join();
}

TEST(RecycledVectors, KeepsAtMostEightIdle) {
  RecycledVectors<float> pool;
  std::vector<GBytes*> out;
  for (int i = 0; i < 12; ++i)
    out.push_back(pool.wrap(std::vector<float>(10)));
  for (GBytes* bytes : out)
    g_bytes_unref(bytes);
  int idle = 0;
  while (!pool.take().empty())
    ++idle;
  EXPECT_EQ(idle, 8);
}

TEST(RecycledVectors, EmptyVectorsWrapToEmptyBytes) {
  RecycledVectors<float> pool;
  GBytes* bytes = pool.wrap(std::vector<float>());
  EXPECT_EQ(g_bytes_get_size(bytes), 0u);
  g_bytes_unref(bytes);
}

}  // namespace
}  // namespace gpusift::testing
