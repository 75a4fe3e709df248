// SPDX-License-Identifier: LGPL-2.1-or-later
// The integral image of the CPU SURF backend (OpenMP over rows, then over columns).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpusift::cpu {

// Writes the (height + 1) x (width + 1) table of surf_integral.h, rows `stride` elements apart.
void integral_image(const uint8_t* gray, size_t pitch_bytes, int width, int height, uint32_t* table,
                    int stride);

}  // namespace gpusift::cpu
