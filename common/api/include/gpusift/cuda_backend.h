// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA backend as the backend-neutral factories see it: declared here, in the API layer, so
// that the factories (common/api/src) need no header of the CUDA backend, whose layer (kernels/)
// sits above this one. kernels/cuda/cuda_{extractor,matcher}_adapters.cpp define these entry
// points when the CUDA backend is built; common/api/src/cuda_backend_absent.cpp defines them
// otherwise. Applications call create_extractor / create_matcher instead.
#pragma once

#include <memory>

#include "gpusift/extractor.h"
#include "gpusift/matcher.h"
#include "gpusift/method.h"  // FeatureConfig

namespace gpusift {

// Whether the CUDA backend is built into this libgpusift (built_backends lists it then).
bool cuda_backend_built();

// The CUDA extractor that create_extractor(Backend::kCuda, config, cuda_device_id) returns. It
// selects its device itself (-1: device 0) and makes it current around each of its calls and its
// destruction, so that any thread may use it. `config` has been validated by the caller (the
// factories validate first, so that bad parameters are reported as such even without a device).
// Throws gpusift::Error: kNoDevice when the backend is not built, there is no driver or device,
// or cuda_device_id does not exist; kOutOfMemory / kDeviceFailure for CUDA errors on creation.
std::unique_ptr<Extractor> make_cuda_extractor(const FeatureConfig& config, int cuda_device_id);

// The CUDA extractor that create_cuda_extractor_on_current_context(config) returns: on the
// context current on this thread, with its own stream; it selects no device, and the caller keeps
// that context current while creating, using and destroying it. `config` validated as above.
// Throws gpusift::Error: kNoDevice when the backend is not built or there is no device;
// kOutOfMemory / kDeviceFailure for CUDA errors on creation.
std::unique_ptr<Extractor> make_cuda_extractor_on_current_context(const FeatureConfig& config);

// The CUDA matcher that create_matcher(Backend::kCuda, cuda_device_id) returns: it selects its
// device itself (-1: device 0), as make_cuda_extractor does. Throws gpusift::Error: kNoDevice
// when the backend is not built, there is no driver or device, or cuda_device_id does not exist;
// kOutOfMemory / kDeviceFailure for CUDA errors on creation.
std::unique_ptr<Matcher> make_cuda_matcher(int cuda_device_id);

// The CUDA matcher that create_cuda_matcher_on_current_context() returns: on the context current
// on this thread, as make_cuda_extractor_on_current_context. Throws gpusift::Error: kNoDevice
// when the backend is not built or there is no device; kOutOfMemory / kDeviceFailure for CUDA
// errors on creation.
std::unique_ptr<Matcher> make_cuda_matcher_on_current_context();

}  // namespace gpusift
