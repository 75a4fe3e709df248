// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA backend's Extractor adapters and the entry points of gpusift/cuda_backend.h that make
// them. They live with the CUDA backend (kernels/) rather than with the factories (common/api), so
// that the backend-neutral API includes no header of this higher layer: this file includes the
// API's headers instead, an arrow that runs down.
#include <memory>

#include "gpusift/cuda_backend.h"
#include "gpusift/cuda_sift.h"
#include "gpusift/cuda_surf.h"
#include "gpusift/error.h"
#include "gpusift/extractor.h"
#include "gpusift/method.h"

namespace gpusift {

namespace {

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
}  // namespace

bool cuda_backend_built() {
  return true;
}

std::unique_ptr<Extractor> make_cuda_extractor_on_current_context(const FeatureConfig& config) {
  if (config.method == Method::kSurf)
    return std::make_unique<CurrentContextCudaExtractor<CudaSurfExtractor>>(config.surf);
  return std::make_unique<PipelinedCudaSiftExtractor>(config.sift);
}

std::unique_ptr<Extractor> make_cuda_extractor(const FeatureConfig& config, int cuda_device_id) {
  if (config.method == Method::kSurf)
    return std::make_unique<CudaExtractor<CurrentContextCudaExtractor<CudaSurfExtractor>>>(
        config.surf, cuda_device_id);
  return std::make_unique<CudaExtractor<PipelinedCudaSiftExtractor>>(config.sift, cuda_device_id);
}

}  // namespace gpusift
