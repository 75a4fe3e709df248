// SPDX-License-Identifier: LGPL-2.1-or-later
#include "memory_probe.h"

#include <unistd.h>

#include <cstdio>

#ifdef GPUSIFT_SOAK_CUDA
#include <cuda_runtime.h>
#endif

namespace gpusift::soak {

int64_t host_rss_bytes() {
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr)
    return -1;
  long total_pages = 0, resident_pages = 0;
  const int fields = std::fscanf(statm, "%ld %ld", &total_pages, &resident_pages);
  std::fclose(statm);
  if (fields != 2)
    return -1;
  return static_cast<int64_t>(resident_pages) * sysconf(_SC_PAGESIZE);
}

int64_t device_used_bytes() {
#ifdef GPUSIFT_SOAK_CUDA
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess)
    return -1;
  return static_cast<int64_t>(total_bytes - free_bytes);
#else
  return -1;
#endif
}

}  // namespace gpusift::soak
