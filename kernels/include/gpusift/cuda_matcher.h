// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA backend of descriptor matching and RANSAC, equal to CpuMatcher bit for bit.
//
// Conventions of gpusift/cuda_sift.h: the matcher owns its device and pinned buffers (grown on
// demand, kept between calls), never selects a device, never uses the default stream and never
// synchronises the device; create and use it with its device current and pass the stream to
// run on. Each call waits for that stream only, as its results come back to the host. One call
// at a time per instance.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "gpusift/cuda_sift.h"  // CudaStream, ScopedCudaDevice, OwnedCudaStream
#include "gpusift/match_types.h"

namespace gpusift {

class CudaMatcher {
 public:
  // device_id must be the current device (-1: take the current one). Throws kNoDevice without
  // a usable device.
  explicit CudaMatcher(int device_id = -1);
  ~CudaMatcher();
  CudaMatcher(const CudaMatcher&) = delete;
  CudaMatcher& operator=(const CudaMatcher&) = delete;

  // See gpusift::Matcher::match. Host or device memory (of this device, readable on `stream`);
  // descriptors in device memory are read in place. Throws gpusift::Error: kInvalidArgument,
  // kOutOfMemory (the matcher stays usable), kDeviceFailure.
  void match(const DescriptorSetView& query, const DescriptorSetView& train,
             const MatchParams& params, CudaStream stream, std::vector<Match>* out);

  // See gpusift::Matcher::estimate_motion: hypotheses are drawn and scored on the device, the
  // winner is refitted on the host by the code the CPU backend runs.
  MotionEstimate estimate_motion(const std::vector<PointPair>& pairs, const RansacParams& params,
                                 CudaStream stream);

  // See gpusift::Matcher::begin_match_and_fit: the matches, their selection and pairs, the
  // hypotheses and the winner's score and sums run on the device; finish waits for `stream`
  // once and refits on the host by the CPU backend's code.
  void begin_match_and_fit(const MatchAndFitRequest& request, CudaStream stream);
  void finish_match_and_fit(MatchAndFitResult* out);

  // Query rows whose nearest neighbours the last match() had to find by an exhaustive exact
  // scan because the tensor-core screening left too many candidates (ties, duplicates); for
  // tests and profiling.
  int last_exhaustive_rows() const;
  int device_id() const;
  size_t reserved_device_bytes() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gpusift
