// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cstdlib>

#include "cuda_check.h"
#include "launch_fault_hook.h"

namespace gpusift::cuda {

namespace {

__global__ void never_runs() {}

// More threads per block than any GPU takes: the launch itself fails, and as that error is not
// sticky the context stays usable, like a real configuration fault.
constexpr int kImpossibleBlockSize = 4096;

}  // namespace

LaunchFaultHook::LaunchFaultHook() {
  const char* text = std::getenv("GPUSIFT_TEST_FAIL_LAUNCH");
  fail_at_frame_ = text ? std::atol(text) : 0;
}

void LaunchFaultHook::on_frame(cudaStream_t stream) {
  if (fail_at_frame_ <= 0 || ++frames_ != fail_at_frame_)
    return;
  never_runs<<<1, kImpossibleBlockSize, 0, stream>>>();
  check_launch("the launch forced by GPUSIFT_TEST_FAIL_LAUNCH");
}

}  // namespace gpusift::cuda
