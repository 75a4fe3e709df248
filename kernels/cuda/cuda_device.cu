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

OwnedCudaStream::OwnedCudaStream(const ScopedCudaDevice&) : OwnedCudaStream() {}

OwnedCudaStream::OwnedCudaStream(Ordering ordering) : stream_(nullptr) {
  cudaStream_t stream = nullptr;
  const unsigned flags =
      ordering == Ordering::kIndependent ? cudaStreamNonBlocking : cudaStreamDefault;
  cuda::check(cudaStreamCreateWithFlags(&stream, flags), "cudaStreamCreate");
  stream_ = stream;
}

OwnedCudaStream::~OwnedCudaStream() {
  if (stream_)
    cudaStreamDestroy(stream_);
}

}  // namespace gpusift
