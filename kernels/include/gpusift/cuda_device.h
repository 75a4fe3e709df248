// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA backend's view of the machine, for code that must not depend on the backend-neutral API
// (the kernels) and for that API, which re-exports it (gpusift/extractor.h).
#pragma once

namespace gpusift {

// Usable CUDA devices; 0 when the CUDA backend is not built, or there is no driver or GPU.
// Defined by kernels/cuda/cuda_device.cu, or by common/api when the CUDA backend is not built.
int cuda_device_count();

}  // namespace gpusift
