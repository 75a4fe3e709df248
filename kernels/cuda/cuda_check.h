// SPDX-License-Identifier: LGPL-2.1-or-later
// Turns CUDA error codes into gpusift::Error with the failing call named.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "gpusift/error.h"

namespace gpusift::cuda {

inline ErrorCode classify(cudaError_t status) {
  switch (status) {
    case cudaErrorMemoryAllocation:
      return ErrorCode::kOutOfMemory;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
      return ErrorCode::kNoDevice;
    default:
      return ErrorCode::kDeviceFailure;
  }
}

inline void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess)
    return;
  throw Error(classify(status), std::string(what) + " failed: " + cudaGetErrorName(status) + " (" +
                                    cudaGetErrorString(status) + ")");
}

// After a kernel launch: catches bad configurations at once.
inline void check_launch(const char* kernel) {
  check(cudaGetLastError(), kernel);
}

}  // namespace gpusift::cuda
