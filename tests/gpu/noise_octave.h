// SPDX-License-Identifier: LGPL-2.1-or-later
// One octave of Gaussian levels of uniform noise in 0..255 on the device, for the histogram
// kernels' tests: noise gives gradients as large as any real level does.
#pragma once

#include <cstddef>
#include <random>
#include <vector>

#include "device_array.h"
#include "feature_kernels.h"
#include "gpusift/sift_scale_space.h"

namespace gpusift::testing {

class NoiseOctave {
 public:
  NoiseOctave(int width, int height, int stride, int layers, std::mt19937& random)
      : gaussian_(noise(static_cast<size_t>(stride) * height * gaussian_levels(layers), random)) {
    const size_t plane = static_cast<size_t>(stride) * height;
    table_.count = 1;
    table_.gaussian[0] = LayerStackView{gaussian_.data, width, height, stride, plane};
  }
  const cuda::OctaveTable& table() const { return table_; }

 private:
  static std::vector<float> noise(size_t count, std::mt19937& random) {
    std::uniform_real_distribution<float> pixel(0.f, 255.f);
    std::vector<float> values(count);
    for (float& v : values)
      v = pixel(random);
    return values;
  }

  DeviceArray<float> gaussian_;
  cuda::OctaveTable table_{};
};

}  // namespace gpusift::testing
