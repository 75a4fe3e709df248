// SPDX-License-Identifier: LGPL-2.1-or-later
// The extractor factories and the CPU backend's adapter. The CUDA backend is reached only through
// gpusift/cuda_backend.h, which the CUDA backend (kernels/) implements, so that this layer
// includes no header of that higher one.
#include <memory>
#include <string>
#include <vector>

#include "gpusift/cpu_sift.h"
#include "gpusift/cpu_surf.h"
#include "gpusift/cuda_backend.h"
#include "gpusift/error.h"
#include "gpusift/extractor.h"
#include "gpusift/host_gray.h"

namespace gpusift {

namespace {

// Impl: CpuSiftExtractor or CpuSurfExtractor.
template <typename Impl>
class CpuExtractor final : public Extractor {
 public:
  template <typename Params>
  explicit CpuExtractor(const Params& params) : impl_(params) {}
  Backend backend() const override { return Backend::kCpu; }
  void extract(const FrameView& frame, Features* out) override {
    out->clear();
    const HostGray gray = host_gray_pixels(frame, &gray_scratch_);
    impl_.extract(gray.pixels, gray.pitch_bytes, frame.width, frame.height, out);
  }

 private:
  Impl impl_;
  std::vector<uint8_t> gray_scratch_;
};

FeatureConfig sift_config(const SiftParams& params) {
  FeatureConfig config;
  config.method = Method::kSift;
  config.sift = params;
  return config;
}

// Bad parameters are reported as such even where no device could be had.
void validate_config(const FeatureConfig& config) {
  if (config.method == Method::kSurf)
    validate(config.surf);
  else
    validate(config.sift);
}

std::unique_ptr<Extractor> create_cpu_extractor(const FeatureConfig& config) {
  if (config.method == Method::kSurf)
    return std::make_unique<CpuExtractor<CpuSurfExtractor>>(config.surf);
  return std::make_unique<CpuExtractor<CpuSiftExtractor>>(config.sift);
}

}  // namespace

std::unique_ptr<Extractor> create_cuda_extractor_on_current_context(const SiftParams& params) {
  return create_cuda_extractor_on_current_context(sift_config(params));
}

std::unique_ptr<Extractor> create_cuda_extractor_on_current_context(const FeatureConfig& config) {
  validate_config(config);
  return make_cuda_extractor_on_current_context(config);
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
  if (cuda_backend_built())
    return {Backend::kCuda, Backend::kCpu};
  return {Backend::kCpu};
}

std::unique_ptr<Extractor> create_extractor(Backend backend, const SiftParams& params,
                                            int cuda_device_id) {
  return create_extractor(backend, sift_config(params), cuda_device_id);
}

std::unique_ptr<Extractor> create_extractor(Backend backend, const FeatureConfig& config,
                                            int cuda_device_id) {
  validate_config(config);
  if (backend == Backend::kAuto)
    backend = cuda_device_count() > 0 ? Backend::kCuda : Backend::kCpu;
  if (backend == Backend::kCpu)
    return create_cpu_extractor(config);
  return make_cuda_extractor(config, cuda_device_id);
}

}  // namespace gpusift
