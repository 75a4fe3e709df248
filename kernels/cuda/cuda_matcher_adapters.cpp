// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA backend's Matcher adapters and the entry points of gpusift/cuda_backend.h that make
// them. They live with the CUDA backend (kernels/) rather than with the factories (common/api), so
// that the backend-neutral API includes no header of this higher layer: this file includes the
// API's headers instead, an arrow that runs down.
#include <memory>
#include <vector>

#include "gpusift/cuda_backend.h"
#include "gpusift/cuda_matcher.h"
#include "gpusift/cuda_sift.h"
#include "gpusift/error.h"
#include "gpusift/matcher.h"

namespace gpusift {

namespace {

// On the context current at construction; the caller keeps it current while using this. Each
// call's work on its own non-blocking stream waits for an event on the legacy default stream,
// where GStreamer's CUDA elements and gpusiftfilter's descriptor copies write.
class CurrentContextCudaMatcher : public Matcher {
 public:
  Backend backend() const override { return Backend::kCuda; }
  void match(const DescriptorSetView& query, const DescriptorSetView& train,
             const MatchParams& params, std::vector<Match>* out) override {
    stream_.wait_for_legacy_default_stream();
    impl_.match(query, train, params, stream_.get(), out);
  }
  MotionEstimate estimate_motion(const std::vector<PointPair>& pairs,
                                 const RansacParams& params) override {
    stream_.wait_for_legacy_default_stream();
    return impl_.estimate_motion(pairs, params, stream_.get());
  }
  void begin_match_and_fit(const MatchAndFitRequest& request) override {
    stream_.wait_for_legacy_default_stream();
    impl_.begin_match_and_fit(request, stream_.get());
  }
  void finish_match_and_fit(MatchAndFitResult* out) override { impl_.finish_match_and_fit(out); }

 private:
  OwnedCudaStream stream_;
  CudaMatcher impl_;
};

// Selects the device itself, for callers without their own context management: the device is
// made current around every call, so that any thread may use the matcher.
class CudaMatcherOnDevice final : public Matcher {
 public:
  explicit CudaMatcherOnDevice(int device_id) {
    const ScopedCudaDevice device(device_id);
    device_id_ = device.id();
    impl_ = std::make_unique<CurrentContextCudaMatcher>();
  }
  ~CudaMatcherOnDevice() override {
    try {
      const ScopedCudaDevice device(device_id_);
      impl_.reset();
    } catch (const Error&) {
      impl_.reset();
    }
  }
  Backend backend() const override { return Backend::kCuda; }
  void match(const DescriptorSetView& query, const DescriptorSetView& train,
             const MatchParams& params, std::vector<Match>* out) override {
    const ScopedCudaDevice device(device_id_);
    impl_->match(query, train, params, out);
  }
  MotionEstimate estimate_motion(const std::vector<PointPair>& pairs,
                                 const RansacParams& params) override {
    const ScopedCudaDevice device(device_id_);
    return impl_->estimate_motion(pairs, params);
  }
  void begin_match_and_fit(const MatchAndFitRequest& request) override {
    const ScopedCudaDevice device(device_id_);
    impl_->begin_match_and_fit(request);
  }
  void finish_match_and_fit(MatchAndFitResult* out) override {
    const ScopedCudaDevice device(device_id_);
    impl_->finish_match_and_fit(out);
  }

 private:
  int device_id_ = 0;
  std::unique_ptr<CurrentContextCudaMatcher> impl_;
};
}  // namespace

std::unique_ptr<Matcher> make_cuda_matcher_on_current_context() {
  return std::make_unique<CurrentContextCudaMatcher>();
}

std::unique_ptr<Matcher> make_cuda_matcher(int cuda_device_id) {
  return std::make_unique<CudaMatcherOnDevice>(cuda_device_id);
}

}  // namespace gpusift
