// SPDX-License-Identifier: LGPL-2.1-or-later
#include "overlapped_launch.h"

namespace gpusift::cuda {

// Asked at every launch: launches are enqueued when a frame size's graph is captured, not per
// frame, and the answer depends on the device current at that time.
bool current_device_overlaps_launches() {
  int device = 0, major = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device),
        "cudaDeviceGetAttribute");
  return major >= 9;
}

int current_device_highest_priority() {
  int least = 0, greatest = 0;
  check(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
  return greatest;
}

}  // namespace gpusift::cuda
