// SPDX-License-Identifier: LGPL-2.1-or-later
// The matcher factories and the CPU backend's adapter. The CUDA backend is reached only through
// gpusift/cuda_backend.h, which the CUDA backend (kernels/) implements, so that this layer
// includes no header of that higher one.
#include <memory>
#include <utility>

#include "gpusift/cpu_matcher.h"
#include "gpusift/cuda_backend.h"
#include "gpusift/error.h"
#include "gpusift/matcher.h"

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

}  // namespace

std::unique_ptr<Matcher> create_cuda_matcher_on_current_context() {
  return make_cuda_matcher_on_current_context();
}

std::unique_ptr<Matcher> create_matcher(Backend backend, int cuda_device_id) {
  if (backend == Backend::kAuto)
    backend = cuda_device_count() > 0 ? Backend::kCuda : Backend::kCpu;
  if (backend == Backend::kCpu)
    return std::make_unique<CpuMatcherAdapter>();
  return make_cuda_matcher(cuda_device_id);
}

}  // namespace gpusift
