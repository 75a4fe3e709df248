// SPDX-License-Identifier: LGPL-2.1-or-later
// Owning device and pinned-host allocations that grow only when asked for more.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda_check.h"

namespace gpusift::cuda {

struct DeviceAllocator {
  static void* allocate(size_t bytes) {
    void* p = nullptr;
    check(cudaMalloc(&p, bytes), "cudaMalloc");
    return p;
  }
  static void release(void* p) { cudaFree(p); }
};

struct PinnedAllocator {
  static void* allocate(size_t bytes) {
    void* p = nullptr;
    check(cudaMallocHost(&p, bytes), "cudaMallocHost");
    return p;
  }
  static void release(void* p) { cudaFreeHost(p); }
};

template <typename T, typename Allocator>
class Buffer {
 public:
  Buffer() = default;
  ~Buffer() { release(); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  // Keeps the allocation when it is already large enough.
  void reserve(size_t count) {
    if (count <= capacity_)
      return;
    release();
    if (count == 0)
      return;
    data_ = static_cast<T*>(Allocator::allocate(count * sizeof(T)));
    capacity_ = count;
  }
  void release() {
    if (data_)
      Allocator::release(data_);
    data_ = nullptr;
    capacity_ = 0;
  }
  T* get() const { return data_; }
  size_t capacity() const { return capacity_; }
  size_t bytes() const { return capacity_ * sizeof(T); }

 private:
  T* data_ = nullptr;
  size_t capacity_ = 0;
};

template <typename T>
using DeviceBuffer = Buffer<T, DeviceAllocator>;
template <typename T>
using PinnedBuffer = Buffer<T, PinnedAllocator>;

// The device's address of pinned host memory, for kernels that write results across PCIe.
template <typename T>
T* mapped_host_pointer(T* host) {
  void* device = nullptr;
  check(cudaHostGetDevicePointer(&device, host, 0), "cudaHostGetDevicePointer");
  return static_cast<T*>(device);
}

}  // namespace gpusift::cuda
