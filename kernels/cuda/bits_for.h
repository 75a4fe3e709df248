// SPDX-License-Identifier: LGPL-2.1-or-later
// The bits that hold every value from 0 to largest_value (at least one): the widths of the
// candidates' key fields and of the indices the rank sort packs beside them.
#pragma once

namespace gpusift::cuda {

inline int bits_for(int largest_value) {
  int bits = 1;
  while ((largest_value >> bits) != 0)
    ++bits;
  return bits;
}

}  // namespace gpusift::cuda
