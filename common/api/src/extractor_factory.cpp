// SPDX-License-Identifier: LGPL-2.1-or-later
#include <memory>
#include <string>

#include "gpusift/cpu_sift.h"
#include "gpusift/cpu_surf.h"
#include "gpusift/error.h"
#include "gpusift/extractor.h"
#include "gpusift/host_gray.h"

#ifdef GPUSIFT_HAVE_CUDA
#include "gpusift/cuda_sift.h"
#include "gpusift/cuda_surf.h"
#endif

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

#ifdef GPUSIFT_HAVE_CUDA
// On the context current at construction; the caller keeps it current while using this. Each
// frame on its own non-blocking stream waits for an event on the legacy default stream, so that
// device frames written there by GStreamer's CUDA elements are complete before they are read and
// the caller's copies of the last results enqueued there are done before they are overwritten,
// while instances never serialise on that stream. Impl: Cuda{Sift,Surf}Extractor.
template <typename Impl>
class CurrentContextCudaExtractor : public Extractor {
 public:
  template <typename Params>
  explicit CurrentContextCudaExtractor(const Params& params) : impl_(params) {}
  Backend backend() const override { return Backend::kCuda; }
  void extract(const FrameView& frame, Features* out) override {
    stream_.wait_for_legacy_default_stream();
    impl_.extract(frame, stream_.get(), out);
  }
  bool device_features(DeviceFeatures* out) const override {
    *out = impl_.device_features();
    return true;
  }
  void set_host_frame_access(HostFrameAccess access) override {
    impl_.set_host_frame_access(access);
  }
  bool reads_host_frames_in_place() const override { return impl_.maps_host_frames(); }

 protected:
  Impl& impl() { return impl_; }
  const Impl& impl() const { return impl_; }
  OwnedCudaStream& stream() { return stream_; }

 private:
  OwnedCudaStream stream_;
  Impl impl_;
};

// CUDA SIFT with frames in flight on its stream.
class PipelinedCudaSiftExtractor final : public CurrentContextCudaExtractor<CudaSiftExtractor> {
 public:
  using CurrentContextCudaExtractor::CurrentContextCudaExtractor;
  int max_in_flight() const override { return CudaSiftExtractor::kMaxInFlight; }
  int in_flight() const override { return impl().in_flight(); }
  void submit(const FrameView& frame) override {
    // Refused before the extractor sees it, which would drop the frames in flight.
    if (in_flight() >= max_in_flight())
      throw Error(ErrorCode::kInvalidArgument, "too many frames in flight");
    try {
      stream().wait_for_legacy_default_stream();
    } catch (...) {
      impl().cancel();
      throw;
    }
    impl().begin(frame, stream().get());
  }
  void collect(Features* out) override {
    if (in_flight() == 0)
      throw Error(ErrorCode::kInvalidArgument, "no frame in flight");
    impl().finish(out);
  }
  void cancel() override { impl().cancel(); }
  void extract(const FrameView& frame, Features* out) override {
    if (in_flight() > 0)
      throw Error(ErrorCode::kInvalidArgument, "extract() with frames in flight");
    CurrentContextCudaExtractor::extract(frame, out);
  }
};

// Selects the device itself, for callers without their own context management: the device is
// made current around every call, so that any thread may use the extractor (the CUDA runtime's
// current device is per thread). OnContext: CurrentContextCudaExtractor<CudaSurfExtractor> or
// PipelinedCudaSiftExtractor.
template <typename OnContext>
class CudaExtractor final : public Extractor {
 public:
  template <typename Params>
  CudaExtractor(const Params& params, int device_id) {
    const ScopedCudaDevice device(device_id);
    device_id_ = device.id();
    impl_ = std::make_unique<OnContext>(params);
  }
  ~CudaExtractor() override {
    try {
      const ScopedCudaDevice device(device_id_);
      impl_.reset();
    } catch (const Error&) {
      impl_.reset();
    }
  }
  Backend backend() const override { return Backend::kCuda; }
  void extract(const FrameView& frame, Features* out) override {
    on_device([&] { impl_->extract(frame, out); });
  }
  int max_in_flight() const override { return impl_->max_in_flight(); }
  int in_flight() const override { return impl_->in_flight(); }
  void submit(const FrameView& frame) override {
    on_device([&] { impl_->submit(frame); });
  }
  void collect(Features* out) override {
    on_device([&] { impl_->collect(out); });
  }
  void cancel() override {
    on_device([&] { impl_->cancel(); });
  }
  bool device_features(DeviceFeatures* out) const override { return impl_->device_features(out); }
  void set_host_frame_access(HostFrameAccess access) override {
    on_device([&] { impl_->set_host_frame_access(access); });
  }
  bool reads_host_frames_in_place() const override { return impl_->reads_host_frames_in_place(); }

 private:
  template <typename Call>
  void on_device(Call&& call) {
    const ScopedCudaDevice device(device_id_);
    call();
  }

  int device_id_ = 0;
  std::unique_ptr<OnContext> impl_;
};
#endif

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

#ifndef GPUSIFT_HAVE_CUDA
[[noreturn]] void throw_cuda_not_built() {
  throw Error(ErrorCode::kNoDevice, "the CUDA backend is not built into this gpusift");
}
#endif

}  // namespace

std::unique_ptr<Extractor> create_cuda_extractor_on_current_context(const SiftParams& params) {
  return create_cuda_extractor_on_current_context(sift_config(params));
}

std::unique_ptr<Extractor> create_cuda_extractor_on_current_context(const FeatureConfig& config) {
  validate_config(config);
#ifdef GPUSIFT_HAVE_CUDA
  if (config.method == Method::kSurf)
    return std::make_unique<CurrentContextCudaExtractor<CudaSurfExtractor>>(config.surf);
  return std::make_unique<PipelinedCudaSiftExtractor>(config.sift);
#else
  throw_cuda_not_built();
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
                                            int cuda_device_id) {
  return create_extractor(backend, sift_config(params), cuda_device_id);
}

std::unique_ptr<Extractor> create_extractor(Backend backend, const FeatureConfig& config,
                                            [[maybe_unused]] int cuda_device_id) {
  validate_config(config);
  if (backend == Backend::kAuto)
    backend = cuda_device_count() > 0 ? Backend::kCuda : Backend::kCpu;
  if (backend == Backend::kCpu)
    return create_cpu_extractor(config);
#ifdef GPUSIFT_HAVE_CUDA
  if (config.method == Method::kSurf)
    return std::make_unique<CudaExtractor<CurrentContextCudaExtractor<CudaSurfExtractor>>>(
        config.surf, cuda_device_id);
  return std::make_unique<CudaExtractor<PipelinedCudaSiftExtractor>>(config.sift, cuda_device_id);
#else
  throw_cuda_not_built();
#endif
}

}  // namespace gpusift
