// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU SURF backend on GRAY8 frames, multi-threaded with OpenMP, in the conventions of
// OpenCV's cv::xfeatures2d::SURF. The oracle for a CUDA SURF backend, which reuses the math of
// the surf_*.h headers. One instance keeps its buffers between frames of one size; instances
// share nothing, so several may run at once (one call at a time per instance).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "gpusift/features.h"
#include "gpusift/surf_params.h"

namespace gpusift {

class CpuSurfExtractor {
 public:
  // Throws gpusift::Error(kInvalidArgument) for bad parameters.
  explicit CpuSurfExtractor(const SurfParams& params);
  ~CpuSurfExtractor();
  CpuSurfExtractor(const CpuSurfExtractor&) = delete;
  CpuSurfExtractor& operator=(const CpuSurfExtractor&) = delete;

  // Detects and describes the features of a GRAY8 frame whose rows are pitch_bytes apart, in
  // the canonical keypoint order. Reuses `out`'s storage. Throws gpusift::Error for a bad frame
  // or when memory runs out; `out` is then left empty.
  void extract(const uint8_t* gray, size_t pitch_bytes, int width, int height, Features* out);
  Features extract(const uint8_t* gray, size_t pitch_bytes, int width, int height);

  const SurfParams& params() const;
  // Bytes held for the integral image and the determinant layers of the last frame size.
  size_t reserved_bytes() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gpusift
