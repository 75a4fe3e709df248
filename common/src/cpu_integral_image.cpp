// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_integral_image.h"

#include <algorithm>

namespace gpusift::cpu {

void integral_image(const uint8_t* gray, size_t pitch_bytes, int width, int height, uint32_t* table,
                    int stride) {
  std::fill(table, table + width + 1, 0u);
#pragma omp parallel for schedule(static)
  for (int y = 0; y < height; ++y) {
    const uint8_t* in = gray + static_cast<size_t>(y) * pitch_bytes;
    uint32_t* out = table + static_cast<size_t>(y + 1) * stride;
    uint32_t running = 0;
    out[0] = 0;
    for (int x = 0; x < width; ++x) {
      running += in[x];
      out[x + 1] = running;
    }
  }
  // Column sums, in strips wide enough to vectorise and few enough to share out.
  constexpr int kStrip = 256;
  const int strips = (width + 1 + kStrip - 1) / kStrip;
#pragma omp parallel for schedule(static)
  for (int strip = 0; strip < strips; ++strip) {
    const int begin = strip * kStrip, end = std::min(begin + kStrip, width + 1);
    for (int y = 1; y <= height; ++y) {
      const uint32_t* __restrict above = table + static_cast<size_t>(y - 1) * stride;
      uint32_t* __restrict row = table + static_cast<size_t>(y) * stride;
      for (int x = begin; x < end; ++x)
        row[x] += above[x];
    }
  }
}

}  // namespace gpusift::cpu
