// SPDX-License-Identifier: LGPL-2.1-or-later
// Non-owning views of float images, identical on host and device.
#pragma once

#include <cstddef>

#include "gpusift/hostdevice.h"

namespace gpusift {

struct FloatImageView {
  const float* data;
  int width;
  int height;
  int stride;  // in floats

  GPUSIFT_HD float at(int row, int col) const {
    return data[static_cast<ptrdiff_t>(row) * stride + col];
  }
};

// The layers of one octave stored one after another with a fixed layer stride.
struct LayerStackView {
  const float* data;
  int width;
  int height;
  int stride;           // in floats
  size_t layer_stride;  // in floats

  GPUSIFT_HD float at(int layer, int row, int col) const {
    return data[layer * layer_stride + static_cast<ptrdiff_t>(row) * stride + col];
  }
  GPUSIFT_HD FloatImageView layer(int index) const {
    return FloatImageView{data + index * layer_stride, width, height, stride};
  }
};

}  // namespace gpusift
