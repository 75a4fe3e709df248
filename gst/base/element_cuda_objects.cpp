// SPDX-License-Identifier: LGPL-2.1-or-later
#include "element_cuda_objects.h"

namespace gpusift::gst {

bool cuda_device_present(int cuda_device_id) {
  return (cuda_device_id < 0 ? 0 : cuda_device_id) < cuda_device_count();
}

std::unique_ptr<Extractor> create_element_cuda_extractor(const FeatureConfig& config,
                                                         [[maybe_unused]] int cuda_device_id) {
#ifdef GPUSIFT_HAVE_GST_CUDA
  return create_cuda_extractor_on_current_context(config);
#else
  return create_extractor(Backend::kCuda, config, cuda_device_id);
#endif
}

std::unique_ptr<Matcher> create_element_cuda_matcher([[maybe_unused]] int cuda_device_id) {
#ifdef GPUSIFT_HAVE_GST_CUDA
  return create_cuda_matcher_on_current_context();
#else
  return create_matcher(Backend::kCuda, cuda_device_id);
#endif
}

}  // namespace gpusift::gst
