#include <string>

#include "gpusift/cpu_sift.h"
#include "gpusift/error.h"
#include "gpusift/extractor.h"
#include "gpusift/host_gray.h"

#ifdef GPUSIFT_HAVE_CUDA
#include "gpusift/cuda_sift.h"
#endif

namespace gpusift {

namespace {

class CpuExtractor final : public Extractor {
 public:
  explicit CpuExtractor(const SiftParams& params) : impl_(params) {}
  Backend backend() const override { return Backend::kCpu; }
  void extract(const FrameView& frame, Features* out) override {
    out->clear();
    const HostGray gray = host_gray_pixels(frame, &gray_scratch_);
    impl_.extract(gray.pixels, gray.pitch_bytes, frame.width, frame.height, out);
  }

 private:
  CpuSiftExtractor impl_;
  std::vector<uint8_t> gray_scratch_;
};

#ifdef GPUSIFT_HAVE_CUDA
// On the context current at construction; the caller keeps it current while using this.
class CurrentContextCudaExtractor : public Extractor {
 public:
  explicit CurrentContextCudaExtractor(const SiftParams& params) : impl_(params) {}
  Backend backend() const override { return Backend::kCuda; }
  void extract(const FrameView& frame, Features* out) override {
    impl_.extract(frame, stream_.get(), out);
  }

 private:
  OwnedCudaStream stream_;
  CudaSiftExtractor impl_;
};

// Selects the device itself, for callers without their own context management.
class CudaExtractor final : public Extractor {
 public:
  CudaExtractor(const SiftParams& params, int device_id) : device_(device_id), impl_(params) {}
  Backend backend() const override { return Backend::kCuda; }
  void extract(const FrameView& frame, Features* out) override { impl_.extract(frame, out); }

 private:
  ScopedCudaDevice device_;
  CurrentContextCudaExtractor impl_;
};
#endif

}  // namespace

std::unique_ptr<Extractor> create_cuda_extractor_on_current_context(
    [[maybe_unused]] const SiftParams& params) {
#ifdef GPUSIFT_HAVE_CUDA
  return std::make_unique<CurrentContextCudaExtractor>(params);
#else
  throw Error(ErrorCode::kNoDevice, "the CUDA backend is not built into this gpusift");
#endif
}

const char* backend_name(Backend backend) {
  switch (backend) {
    case Backend::kAuto:
      return "auto";
    case Backend::kCpu:
      return "cpu";
    case Backend::kCuda:
      return "cuda";
  }
  return "unknown";
}

bool parse_backend(const std::string& text, Backend* backend) {
  for (Backend candidate : {Backend::kAuto, Backend::kCpu, Backend::kCuda}) {
    if (text == backend_name(candidate)) {
      *backend = candidate;
      return true;
    }
  }
  return false;
}

std::vector<Backend> built_backends() {
#ifdef GPUSIFT_HAVE_CUDA
  return {Backend::kCuda, Backend::kCpu};
#else
  return {Backend::kCpu};
#endif
}

#ifndef GPUSIFT_HAVE_CUDA
int cuda_device_count() {
  return 0;
}
#endif

std::unique_ptr<Extractor> create_extractor(Backend backend, const SiftParams& params,
                                            [[maybe_unused]] int cuda_device_id) {
  if (backend == Backend::kAuto)
    backend = cuda_device_count() > 0 ? Backend::kCuda : Backend::kCpu;
  if (backend == Backend::kCpu)
    return std::make_unique<CpuExtractor>(params);
#ifdef GPUSIFT_HAVE_CUDA
  return std::make_unique<CudaExtractor>(params, cuda_device_id);
#else
  throw Error(ErrorCode::kNoDevice, "the CUDA backend is not built into this gpusift");
#endif
}

}  // namespace gpusift
