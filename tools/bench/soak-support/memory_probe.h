// SPDX-License-Identifier: LGPL-2.1-or-later
// The process's resident memory and the GPU's used memory, sampled while a pipeline runs.
#pragma once

#include <cstdint>

namespace gpusift::soak {

// Resident set size of this process in bytes (/proc/self/statm), or -1.
int64_t host_rss_bytes();

// Memory in use on CUDA device 0 in bytes (total minus free, every process on the device), or -1
// without a device or without the CUDA build.
int64_t device_used_bytes();

}  // namespace gpusift::soak
