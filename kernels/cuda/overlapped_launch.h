// SPDX-License-Identifier: LGPL-2.1-or-later
// Programmatic dependent launch (compute capability 9.0 and later): a kernel launched with
// launch_overlapped() may be scheduled while the kernel before it in the stream (or graph) still
// runs, which hides the gap between the short kernels of a chain. Such a kernel must call
// wait_for_previous_kernel() before it touches memory; let_next_kernel_start() lets the next one
// be scheduled once every block of this one has started.
// These chains are the pyramid's, a frame's critical path, so they also run at the device's
// highest priority: their blocks are scheduled before those of the detection running beside them
// (a graph honours it where instantiated with cudaGraphInstantiateFlagUseNodePriority).
#pragma once

#include <cuda_runtime.h>

#include "cuda_check.h"

namespace gpusift::cuda {

__device__ __forceinline__ void wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void let_next_kernel_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");
#endif
}

bool current_device_overlaps_launches();
int current_device_highest_priority();

// `kernel`<<<grid, block, shared_bytes, stream>>>(args...) at the highest priority, overlapped
// where the current device supports it.
template <typename... Params, typename... Args>
void launch_overlapped(void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared_bytes,
                       cudaStream_t stream, const char* name, Args&&... args) {
  cudaLaunchAttribute attributes[2]{};
  attributes[0].id = cudaLaunchAttributePriority;
  attributes[0].val.priority = current_device_highest_priority();
  attributes[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attributes[1].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = attributes;
  config.numAttrs = current_device_overlaps_launches() ? 2 : 1;
  check(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...), name);
}

}  // namespace gpusift::cuda
