// An owned CUDA event without timing, for waiting on part of a stream's work from the host.
#pragma once

#include <cuda_runtime.h>

#include "cuda_check.h"

namespace gpusift::cuda {

class OwnedEvent {
 public:
  OwnedEvent() {
    check(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), "cudaEventCreate");
  }
  ~OwnedEvent() { cudaEventDestroy(event_); }
  OwnedEvent(const OwnedEvent&) = delete;
  OwnedEvent& operator=(const OwnedEvent&) = delete;

  void record(cudaStream_t stream) { check(cudaEventRecord(event_, stream), "cudaEventRecord"); }
  void wait() { check(cudaEventSynchronize(event_), "cudaEventSynchronize"); }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace gpusift::cuda
