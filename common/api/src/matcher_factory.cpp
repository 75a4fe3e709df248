// SPDX-License-Identifier: LGPL-2.1-or-later
#include <memory>
#include <utility>

#include "gpusift/cpu_matcher.h"
#include "gpusift/error.h"
#include "gpusift/matcher.h"

#ifdef GPUSIFT_HAVE_CUDA
#include "gpusift/cuda_matcher.h"
#endif

namespace gpusift {

namespace {

class CpuMatcherAdapter final : public Matcher {
 public:
  Backend backend() const override { return Backend::kCpu; }
  void match(const DescriptorSetView& query, const DescriptorSetView& train,
             const MatchParams& params, std::vector<Match>* out) override {
    impl_.match(query, train, params, out);
  }
  MotionEstimate estimate_motion(const std::vector<PointPair>& pairs,
                                 const RansacParams& params) override {
    return impl_.estimate_motion(pairs, params);
  }
  void begin_match_and_fit(const MatchAndFitRequest& request) override {
    if (pending_)
      throw Error(ErrorCode::kInvalidArgument, "match and fit: a job is already pending");
    impl_.match_and_fit(request, &result_);
    pending_ = true;
  }
  void finish_match_and_fit(MatchAndFitResult* out) override {
    if (!pending_)
      throw Error(ErrorCode::kInvalidArgument, "match and fit: no job is pending");
    pending_ = false;
    std::swap(*out, result_);
  }

 private:
  CpuMatcher impl_;
  MatchAndFitResult result_;
  bool pending_ = false;
};

#ifdef GPUSIFT_HAVE_CUDA
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
#endif

}  // namespace

std::unique_ptr<Matcher> create_cuda_matcher_on_current_context() {
#ifdef GPUSIFT_HAVE_CUDA
  return std::make_unique<CurrentContextCudaMatcher>();
#else
  throw Error(ErrorCode::kNoDevice, "the CUDA backend is not built into this gpusift");
#endif
}

std::unique_ptr<Matcher> create_matcher(Backend backend, [[maybe_unused]] int cuda_device_id) {
  if (backend == Backend::kAuto)
    backend = cuda_device_count() > 0 ? Backend::kCuda : Backend::kCpu;
  if (backend == Backend::kCpu)
    return std::make_unique<CpuMatcherAdapter>();
#ifdef GPUSIFT_HAVE_CUDA
  return std::make_unique<CudaMatcherOnDevice>(cuda_device_id);
#else
  throw Error(ErrorCode::kNoDevice, "the CUDA backend is not built into this gpusift");
#endif
}

}  // namespace gpusift
