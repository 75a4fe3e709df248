// SPDX-License-Identifier: LGPL-2.1-or-later
// The entry points of gpusift/cuda_backend.h for a libgpusift built without the CUDA backend
// (-Dcuda=disabled, or no toolkit): the factories stay free of #ifdefs and every CUDA request
// fails with kNoDevice. Built instead of kernels/cuda's adapters, never beside them.
#include <memory>

#include "gpusift/cuda_backend.h"
#include "gpusift/error.h"
#include "gpusift/extractor.h"
#include "gpusift/matcher.h"
#include "gpusift/method.h"

namespace gpusift {

namespace {

[[noreturn]] void throw_cuda_not_built() {
  throw Error(ErrorCode::kNoDevice, "the CUDA backend is not built into this gpusift");
}

}  // namespace

bool cuda_backend_built() {
  return false;
}

int cuda_device_count() {
  return 0;
}

std::unique_ptr<Extractor> make_cuda_extractor(const FeatureConfig&, int) {
  throw_cuda_not_built();
}

std::unique_ptr<Extractor> make_cuda_extractor_on_current_context(const FeatureConfig&) {
  throw_cuda_not_built();
}

std::unique_ptr<Matcher> make_cuda_matcher(int) {
  throw_cuda_not_built();
}

std::unique_ptr<Matcher> make_cuda_matcher_on_current_context() {
  throw_cuda_not_built();
}

}  // namespace gpusift
