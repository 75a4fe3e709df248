// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend: OpenCV 4.x SIFT on GRAY8 frames, multi-threaded with OpenMP.
// The oracle for the CUDA backend. One instance keeps its pyramid between frames of one size;
// instances share nothing, so several may run at once (one call at a time per instance).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "gpusift/features.h"
#include "gpusift/sift_params.h"

namespace gpusift {

class CpuSiftExtractor {
 public:
  // Throws gpusift::Error(kInvalidArgument) for bad parameters.
  explicit CpuSiftExtractor(const SiftParams& params);
  ~CpuSiftExtractor();
  CpuSiftExtractor(const CpuSiftExtractor&) = delete;
  CpuSiftExtractor& operator=(const CpuSiftExtractor&) = delete;

  // Detects and describes the features of a GRAY8 frame whose rows are pitch_bytes apart.
  // Reuses `out`'s storage. Throws gpusift::Error for a bad frame or when memory runs out;
  // `out` is then left empty.
  void extract(const uint8_t* gray, size_t pitch_bytes, int width, int height, Features* out);
  Features extract(const uint8_t* gray, size_t pitch_bytes, int width, int height);

  const SiftParams& params() const;
  // Bytes held for the pyramid of the last frame size.
  size_t reserved_bytes() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Threads the CPU backend uses (OpenMP's maximum).
int cpu_thread_count();

}  // namespace gpusift
