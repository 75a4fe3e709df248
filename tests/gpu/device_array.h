// SPDX-License-Identifier: LGPL-2.1-or-later
// A device copy of a host vector for the GPU tests, freed with the object.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace gpusift::testing {

template <typename T>
struct DeviceArray {
  explicit DeviceArray(size_t count) : size(count) {
    EXPECT_EQ(cudaMalloc(&data, sizeof(T) * std::max<size_t>(size, 1)), cudaSuccess);
  }
  explicit DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) { upload(host); }
  ~DeviceArray() { cudaFree(data); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  void upload(const std::vector<T>& host) {
    EXPECT_EQ(cudaMemcpy(data, host.data(), sizeof(T) * size, cudaMemcpyHostToDevice), cudaSuccess);
    // From pageable memory the copy may return before its DMA lands, and the tests' streams do
    // not wait for the legacy stream.
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  std::vector<T> download() const {
    std::vector<T> host(size);
    cudaMemcpy(host.data(), data, sizeof(T) * size, cudaMemcpyDeviceToHost);
    return host;
  }

  T* data = nullptr;
  size_t size;
};

}  // namespace gpusift::testing
