// SPDX-License-Identifier: LGPL-2.1-or-later
#include "synthetic_scene.h"

#include <algorithm>
#include <cmath>

namespace gpusift::soak {

namespace {

// A fixed-seed generator, the same on every machine.
class Lcg {
 public:
  explicit Lcg(uint32_t seed) : state_(seed) {}
  uint32_t next() {
    state_ = state_ * 1664525u + 1013904223u;
    return state_ >> 8;
  }
  int in_range(int low, int high) { return low + static_cast<int>(next() % (high - low + 1)); }

 private:
  uint32_t state_;
};

void fill_disc(std::vector<uint8_t>& texture, int width, int height, int cx, int cy, int radius,
               uint8_t value) {
  for (int y = std::max(0, cy - radius); y <= std::min(height - 1, cy + radius); ++y) {
    for (int x = std::max(0, cx - radius); x <= std::min(width - 1, cx + radius); ++x) {
      if ((x - cx) * (x - cx) + (y - cy) * (y - cy) <= radius * radius)
        texture[static_cast<size_t>(y) * width + x] = value;
    }
  }
}

void fill_rectangle(std::vector<uint8_t>& texture, int width, int height, int x0, int y0, int w,
                    int h, uint8_t value) {
  for (int y = std::max(0, y0); y < std::min(height, y0 + h); ++y)
    std::fill_n(texture.begin() + static_cast<size_t>(y) * width + std::max(0, x0),
                std::max(0, std::min(width, x0 + w) - std::max(0, x0)), value);
}

}  // namespace

SyntheticScene::SyntheticScene(int frame_width, int frame_height)
    : frame_width_(frame_width),
      frame_height_(frame_height),
      texture_width_(frame_width * 2),
      texture_height_(frame_height * 2),
      texture_(static_cast<size_t>(texture_width_) * texture_height_) {
  for (int y = 0; y < texture_height_; ++y) {
    for (int x = 0; x < texture_width_; ++x)
      texture_[static_cast<size_t>(y) * texture_width_ + x] =
          static_cast<uint8_t>(96 + 64 * std::sin(x * 0.011) * std::cos(y * 0.017));
  }
  // Blobs and corners at many scales: about one shape per 900 pixels of texture.
  Lcg random(20261122u);
  const long shapes = static_cast<long>(texture_width_) * texture_height_ / 900;
  const int largest = std::max(4, std::min(texture_width_, texture_height_) / 24);
  for (long i = 0; i < shapes; ++i) {
    const int x = random.in_range(0, texture_width_ - 1);
    const int y = random.in_range(0, texture_height_ - 1);
    const int size = random.in_range(2, largest);
    const auto value = static_cast<uint8_t>(random.in_range(0, 255));
    if (random.next() % 2 == 0)
      fill_disc(texture_, texture_width_, texture_height_, x, y, size, value);
    else
      fill_rectangle(texture_, texture_width_, texture_height_, x, y, size * 2,
                     random.in_range(2, size * 2), value);
  }
}

FrameWindow SyntheticScene::window(long index) const {
  const double half_x = (texture_width_ - frame_width_) / 2.0;
  const double half_y = (texture_height_ - frame_height_) / 2.0;
  const double x = half_x * (1.0 + std::sin(index * 0.0131));
  const double y = half_y * (1.0 + std::sin(index * 0.0077 + 1.0));
  return {std::clamp(static_cast<int>(x), 0, texture_width_ - frame_width_),
          std::clamp(static_cast<int>(y), 0, texture_height_ - frame_height_)};
}

}  // namespace gpusift::soak
