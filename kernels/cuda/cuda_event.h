// SPDX-License-Identifier: LGPL-2.1-or-later
// An owned CUDA event without timing, created on first use on the then-current device, for the
// host to wait on part of a stream while later work in it runs on.
#pragma once

#include <cuda_runtime.h>

#include "cuda_check.h"

namespace gpusift::cuda {

class Event {
 public:
  Event() = default;
  ~Event() {
    if (event_)
      cudaEventDestroy(event_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  void record(cudaStream_t stream) {
    create();
    check(cudaEventRecord(event_, stream), "cudaEventRecord");
  }
  void synchronize() { check(cudaEventSynchronize(event_), "cudaEventSynchronize"); }
  // Whether the work before the last record() has finished, or failed.
  bool finished() const { return cudaEventQuery(event_) != cudaErrorNotReady; }
  // Work enqueued on `stream` from now on waits for the last record().
  void wait_on(cudaStream_t stream) {
    check(cudaStreamWaitEvent(stream, event_, 0), "cudaStreamWaitEvent");
  }
  // The same, and under stream capture a wait on this event that each launch of the graph makes,
  // for an event recorded outside the graph.
  void wait_on_from_graph(cudaStream_t stream) {
    check(cudaStreamWaitEvent(stream, event_, cudaEventWaitExternal), "cudaStreamWaitEvent");
  }
  void create() {
    if (!event_)
      check(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), "cudaEventCreate");
  }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace gpusift::cuda
