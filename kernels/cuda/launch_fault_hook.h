// SPDX-License-Identifier: LGPL-2.1-or-later
// A test hook for failures on the GPU: with GPUSIFT_TEST_FAIL_LAUNCH=N in the environment when a
// CUDA extractor is built, that extractor's Nth frame fails with a real kernel launch error (an
// impossible block size, which the runtime refuses: cudaErrorInvalidValue on CUDA 13;
// gpusift::Error kDeviceFailure), so that tests see how a failing frame ends a stream. Without it,
// a frame costs one comparison.
#pragma once

#include <cuda_runtime.h>

namespace gpusift::cuda {

class LaunchFaultHook {
 public:
  LaunchFaultHook();

  // Throws the failed launch's error when this is the frame to fail.
  void on_frame(cudaStream_t stream);

 private:
  long fail_at_frame_ = 0;  // 0: never
  long frames_ = 0;
};

}  // namespace gpusift::cuda
