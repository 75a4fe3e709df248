// SPDX-License-Identifier: LGPL-2.1-or-later
// The candidates' sort is stable on the key bits it is given: their order, and so the keypoints'
// order, is std::stable_sort's.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "device_array.h"
#include "gpu_fixture.h"
#include "list_primitives.h"

namespace gpusift::testing {
namespace {

class CudaSort : public CudaTest {};

TEST_F(CudaSort, SortsStablyByTheKeyBits) {
  std::mt19937_64 random(17);
  struct Case {
    int n, key_bits;
  };
  for (const Case c : {Case{1, 27}, Case{1000, 27}, Case{8192, 27}, Case{5000, 32}, Case{8192, 40},
                       Case{8193, 27}, Case{20000, 29}}) {
    // Few distinct keys, so that stability decides most of the order.
    std::uniform_int_distribution<uint64_t> key(0, (uint64_t{1} << c.key_bits) - 1);
    std::vector<uint64_t> distinct(64);
    for (uint64_t& k : distinct)
      k = key(random);
    std::vector<uint64_t> keys(c.n);
    for (uint64_t& k : keys)
      k = distinct[random() % distinct.size()];
    std::vector<uint32_t> values(c.n);
    std::iota(values.begin(), values.end(), 0u);

    DeviceArray<uint64_t> keys_in(c.n), keys_out(c.n);
    DeviceArray<uint32_t> values_in(c.n), values_out(c.n);
    keys_in.upload(keys);
    values_in.upload(values);
    const size_t scratch_bytes = cuda::list_scratch_bytes(c.n);
    DeviceArray<uint8_t> scratch(scratch_bytes);
    cuda::sort_by_key(cuda::Scratch{scratch.data, scratch_bytes}, keys_in.data, keys_out.data,
                      values_in.data, values_out.data, c.n, c.key_bits, stream_.get());
    ASSERT_EQ(cudaStreamSynchronize(stream_.get()), cudaSuccess);

    std::vector<uint32_t> expected = values;
    std::stable_sort(expected.begin(), expected.end(),
                     [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
    std::vector<uint64_t> expected_keys(c.n);
    for (int i = 0; i < c.n; ++i)
      expected_keys[i] = keys[expected[i]];
    EXPECT_EQ(values_out.download(), expected) << c.n << " keys of " << c.key_bits << " bits";
    EXPECT_EQ(keys_out.download(), expected_keys) << c.n << " keys of " << c.key_bits << " bits";
  }
}

// The candidates' lists: a count of real keys, then a tail of the all-ones key (beyond the
// count, or none where the count reaches n) in index order. Sorted as a whole by the radix sort
// and by the padded sort, both must give std::stable_sort's order.
TEST_F(CudaSort, PaddedSortEqualsTheStableSortOfTheWholeList) {
  std::mt19937_64 random(29);
  struct Case {
    int n, count, key_bits;
  };
  for (const Case c :
       {Case{1, 0, 27}, Case{1, 1, 27}, Case{1, 5, 27}, Case{8192, 0, 27}, Case{8192, 1305, 29},
        Case{8192, 8192, 29}, Case{8192, 9000, 29}, Case{5000, 4999, 33}, Case{16384, 16000, 31},
        Case{16385, 3000, 29}, Case{8192, 2100, 48}, Case{65536, 40000, 29}}) {
    const int real = std::min(c.count, c.n);
    // Few distinct keys among the real ones, so that their ties are many.
    std::uniform_int_distribution<uint64_t> key(0, (uint64_t{1} << c.key_bits) - 2);
    std::vector<uint64_t> distinct(real / 4 + 1);
    for (uint64_t& k : distinct)
      k = key(random);
    std::vector<uint64_t> keys(c.n, (uint64_t{1} << c.key_bits) - 1);
    for (int i = 0; i < real; ++i)
      keys[i] = distinct[random() % distinct.size()];
    std::vector<uint32_t> values(c.n);
    std::iota(values.begin(), values.end(), 0u);
    std::shuffle(values.begin(), values.begin() + real, random);

    DeviceArray<uint64_t> keys_in(keys), keys_out(c.n);
    DeviceArray<uint32_t> values_in(values), values_out(c.n);
    DeviceArray<int> count(std::vector<int>{c.count});
    const size_t scratch_bytes = cuda::list_scratch_bytes(c.n);
    DeviceArray<uint8_t> scratch(scratch_bytes);
    cuda::sort_padded_by_key(cuda::Scratch{scratch.data, scratch_bytes}, keys_in.data,
                             keys_out.data, values_in.data, values_out.data, count.data, c.n,
                             c.key_bits, stream_.get());
    ASSERT_EQ(cudaStreamSynchronize(stream_.get()), cudaSuccess);

    std::vector<int> order(c.n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return keys[a] < keys[b]; });
    std::vector<uint64_t> expected_keys(c.n);
    std::vector<uint32_t> expected_values(c.n);
    for (int i = 0; i < c.n; ++i) {
      expected_keys[i] = keys[order[i]];
      expected_values[i] = values[order[i]];
    }
    EXPECT_EQ(values_out.download(), expected_values)
        << c.n << " items, count " << c.count << ", keys of " << c.key_bits << " bits";
    EXPECT_EQ(keys_out.download(), expected_keys)
        << c.n << " items, count " << c.count << ", keys of " << c.key_bits << " bits";
  }
}

}  // namespace
}  // namespace gpusift::testing
