// SPDX-License-Identifier: LGPL-2.1-or-later
// Median time of a stream's work between two CUDA events, over many frames after warm-up.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace gpusift::tools {

class CudaEventTimer {
 public:
  CudaEventTimer() {
    if (cudaEventCreate(&start_) != cudaSuccess || cudaEventCreate(&stop_) != cudaSuccess)
      throw std::runtime_error("cudaEventCreate failed");
  }
  ~CudaEventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  CudaEventTimer(const CudaEventTimer&) = delete;
  CudaEventTimer& operator=(const CudaEventTimer&) = delete;

  // `run` enqueues one frame's work on `stream` (it may synchronise inside).
  template <typename Run>
  double median_ms(cudaStream_t stream, int warm_up, int frames, Run&& run) {
    for (int i = 0; i < warm_up; ++i)
      run();
    std::vector<float> times(frames);
    for (float& t : times) {
      cudaEventRecord(start_, stream);
      run();
      cudaEventRecord(stop_, stream);
      cudaEventSynchronize(stop_);
      cudaEventElapsedTime(&t, start_, stop_);
    }
    std::nth_element(times.begin(), times.begin() + frames / 2, times.end());
    return times[frames / 2];
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

}  // namespace gpusift::tools
