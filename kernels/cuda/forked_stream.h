// SPDX-License-Identifier: LGPL-2.1-or-later
// A second stream that work forks onto from a main stream and joins back from, through events,
// so that the fork survives CUDA graph capture (it becomes parallel branches of the graph).
#pragma once

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "cuda_event.h"

namespace gpusift::cuda {

class ForkedStream {
 public:
  ForkedStream() = default;
  ~ForkedStream() {
    if (stream_)
      cudaStreamDestroy(stream_);
  }
  ForkedStream(const ForkedStream&) = delete;
  ForkedStream& operator=(const ForkedStream&) = delete;

  // On the current device; before any capture, which may not create streams.
  void create() {
    if (!stream_)
      check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    fork_.create();
    join_.create();
  }
  // The side stream, ordered after the work enqueued on `main` so far.
  cudaStream_t fork(cudaStream_t main) {
    fork_.record(main);
    fork_.wait_on(stream_);
    return stream_;
  }
  // The side stream, ordered after nothing: for work that needs only the host's data, such as a
  // frame's upload, which then overlaps the kernels still running on `main`.
  cudaStream_t unordered() { return stream_; }
  // `main` from now on waits for everything enqueued on the side stream.
  void join(cudaStream_t main) {
    join_.record(stream_);
    join_.wait_on(main);
  }

 private:
  cudaStream_t stream_ = nullptr;
  Event fork_, join_;
};

}  // namespace gpusift::cuda
