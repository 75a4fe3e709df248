// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cuda_runtime.h>

#include <string>

#include "cuda_check.h"
#include "gpusift/cuda_sift.h"
#include "gpusift/extractor.h"

namespace gpusift {

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // a missing driver is an answer here, not a sticky error
    return 0;
  }
  return count;
}

ScopedCudaDevice::ScopedCudaDevice(int device_id)
    : id_(device_id < 0 ? 0 : device_id), previous_(-1) {
  const int count = cuda_device_count();
  if (count == 0)
    throw Error(ErrorCode::kNoDevice, "no CUDA device is available");
  if (id_ >= count)
    throw Error(ErrorCode::kNoDevice, "CUDA device " + std::to_string(id_) + " does not exist (" +
                                          std::to_string(count) + " present)");
  cuda::check(cudaGetDevice(&previous_), "cudaGetDevice");
  cuda::check(cudaSetDevice(id_), "cudaSetDevice");
}

ScopedCudaDevice::~ScopedCudaDevice() {
  if (previous_ >= 0 && previous_ != id_)
    cudaSetDevice(previous_);
}

OwnedCudaStream::OwnedCudaStream() : stream_(nullptr), legacy_mark_(nullptr) {
  cudaStream_t stream = nullptr;
  cuda::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  cudaEvent_t mark = nullptr;
  const cudaError_t status = cudaEventCreateWithFlags(&mark, cudaEventDisableTiming);
  if (status != cudaSuccess)
    cudaStreamDestroy(stream);
  cuda::check(status, "cudaEventCreate");
  stream_ = stream;
  legacy_mark_ = mark;
}

OwnedCudaStream::OwnedCudaStream(const ScopedCudaDevice&) : OwnedCudaStream() {}

OwnedCudaStream::~OwnedCudaStream() {
  cudaEventDestroy(legacy_mark_);
  cudaStreamDestroy(stream_);
}

void OwnedCudaStream::wait_for_legacy_default_stream() {
  // The wait takes the event's state at this call, so one event serves every frame.
  cuda::check(cudaEventRecord(legacy_mark_, cudaStreamLegacy), "cudaEventRecord");
  cuda::check(cudaStreamWaitEvent(stream_, legacy_mark_, 0), "cudaStreamWaitEvent");
}

}  // namespace gpusift
