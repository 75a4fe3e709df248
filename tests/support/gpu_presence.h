// SPDX-License-Identifier: LGPL-2.1-or-later
// Whether a CUDA suite runs, skips or fails before its first test. It skips (exit 77, which meson
// counts as skipped) only where there truly is no GPU: no NVIDIA driver (libcuda.so.1 cannot be
// loaded) or no device (cudaErrorNoDevice). Any other CUDA error, a driver older than the runtime
// among them, fails the suite with the error's name: on a GPU host a broken setup must not read as
// skipped.
#pragma once

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdio>

namespace gpusift::test {

inline constexpr int kRunSuite = -1;

// kRunSuite, or the exit status the suite's main() returns at once.
inline int gpu_suite_gate() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaSuccess && count > 0)
    return kRunSuite;
  const bool driver_loads = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL) != nullptr;
  if (status == cudaErrorNoDevice || (status == cudaSuccess && count == 0) || !driver_loads) {
    std::printf("SKIP: no CUDA device on this machine (%s)\n",
                driver_loads ? cudaGetErrorName(status) : "no NVIDIA driver: libcuda.so.1");
    return 77;
  }
  std::printf("FAIL: the NVIDIA driver loads but CUDA reports %s: %s\n", cudaGetErrorName(status),
              cudaGetErrorString(status));
  return 1;
}

}  // namespace gpusift::test
