// SPDX-License-Identifier: LGPL-2.1-or-later
// A large deterministic gray texture and a camera that pans over it, so that every frame has
// real, changing features without reading any image file.
#pragma once

#include <cstdint>
#include <vector>

namespace gpusift::soak {

struct FrameWindow {
  int x;
  int y;
};

class SyntheticScene {
 public:
  // A texture twice the frame in each direction.
  SyntheticScene(int frame_width, int frame_height);

  // Where frame `index` sits in the texture: a smooth Lissajous path, never leaving it.
  FrameWindow window(long index) const;

  int frame_width() const { return frame_width_; }
  int frame_height() const { return frame_height_; }
  const uint8_t* texture() const { return texture_.data(); }
  int texture_width() const { return texture_width_; }
  int texture_height() const { return texture_height_; }

 private:
  int frame_width_;
  int frame_height_;
  int texture_width_;
  int texture_height_;
  std::vector<uint8_t> texture_;
};

}  // namespace gpusift::soak
