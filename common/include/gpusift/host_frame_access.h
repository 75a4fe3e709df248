// SPDX-License-Identifier: LGPL-2.1-or-later
// How the CUDA backend reads frames that are in host memory.
#pragma once

#include <string>

namespace gpusift {

// kCopy uploads a host frame into device memory before the first kernel reads it. kMapped lets
// the first kernel read it in place through the device's mapping of pinned memory (a pageable
// frame is first copied into a pinned buffer): where host and device share one DRAM (integrated
// GPUs such as Jetson) the upload is a wasted copy; on a discrete GPU the kernel reads across
// PCIe instead. kAuto maps on integrated GPUs and copies on discrete ones.
enum class HostFrameAccess { kAuto, kCopy, kMapped };

const char* host_frame_access_name(HostFrameAccess access);
// Accepts "auto", "copy", "mapped".
bool parse_host_frame_access(const std::string& text, HostFrameAccess* access);

}  // namespace gpusift
