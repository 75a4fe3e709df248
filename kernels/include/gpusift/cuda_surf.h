// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA SURF backend: the SURF pipeline of common/ (surf_*.h) on an NVIDIA GPU, with the
// same contract as CudaSiftExtractor: buffers kept across frames of one size, no device
// selection, no default stream, no device-wide synchronisation; one call at a time per instance.
//
// Output as CpuSurfExtractor's: the canonical keypoint order (keypoint_canonical_less) without
// duplicates, nfeatures and max_keypoints keeping the strongest (ties to the canonically first),
// bit-identical from run to run. The kernels round as the CPU does (no FMA contraction), so the
// keypoint sets agree; angles and descriptors differ only where the device's atan2f, sinf and
// cosf differ from the host's in the last bits (an angle by an ulp, rarely a sample moved to the
// neighbouring degree bin).
#pragma once

#include <memory>

#include "gpusift/cuda_sift.h"
#include "gpusift/features.h"
#include "gpusift/frame.h"
#include "gpusift/surf_params.h"

namespace gpusift {

class CudaSurfExtractor {
 public:
  // device_id must be the current device (-1: take the current one). Throws gpusift::Error:
  // kNoDevice without a usable device, kInvalidArgument for bad parameters.
  explicit CudaSurfExtractor(const SurfParams& params, int device_id = -1);
  ~CudaSurfExtractor();
  CudaSurfExtractor(const CudaSurfExtractor&) = delete;
  CudaSurfExtractor& operator=(const CudaSurfExtractor&) = delete;

  // As CudaSiftExtractor::extract; Features.descriptor_size is 64 or 128 (0 for kNone).
  void extract(const FrameView& frame, CudaStream stream, Features* out);

  DeviceFeatures device_features() const;
  const SurfParams& params() const;
  // As CudaSiftExtractor's.
  void set_host_frame_access(HostFrameAccess access);
  bool maps_host_frames() const;
  size_t reserved_device_bytes() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gpusift
