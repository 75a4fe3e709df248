/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA extractors and matchers of the elements. With gstreamer-cuda they live on the element's
 * GstCudaContext, which the caller pushes; without it (GStreamer 1.20, JetPack 6) the library
 * makes cuda_device_id current around each of their calls. */
#pragma once

#include <memory>

#include "gpusift/extractor.h"
#include "gpusift/matcher.h"

namespace gpusift::gst {

// For builds without gstreamer-cuda: whether the CUDA backend has device cuda_device_id (-1:
// device 0).
bool cuda_device_present(int cuda_device_id);

// Throw gpusift::Error as the library's factories do.
std::unique_ptr<Extractor> create_element_cuda_extractor(const FeatureConfig& config,
                                                         int cuda_device_id);
std::unique_ptr<Matcher> create_element_cuda_matcher(int cuda_device_id);

}  // namespace gpusift::gst
