// SPDX-License-Identifier: LGPL-2.1-or-later
// Descriptor matching and robust motion estimation between two frames' features, on the CPU or
// an NVIDIA GPU. Both backends give identical results on the same input (the math lives once in
// common/include/gpusift/match_math.h and motion_models.h); the CPU backend is the oracle.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "gpusift/extractor.h"    // Backend
#include "gpusift/frame.h"        // MemoryKind
#include "gpusift/match_types.h"  // DescriptorSetView, MatchParams, Match, PointPair, ...
#include "gpusift/sift_params.h"  // DescriptorFormat

namespace gpusift {

class Matcher {
 public:
  virtual ~Matcher() = default;
  virtual Backend backend() const = 0;

  // For each query row, its nearest train row by L2, kept when best < ratio * second best
  // (Lowe); with cross_check also only when the query row is the nearest to that train row.
  // Output sorted by query index. Reuses out's storage.
  // A missing second neighbour (fewer than 2 train rows) counts as infinitely far, so a single
  // train row always passes the ratio test. Ties go to the lowest train (or query) index.
  // Throws gpusift::Error(kInvalidArgument) for kNone, formats or sizes that differ between
  // query and train, a null pointer with rows, negative counts, or memory the backend cannot
  // read (device memory on the CPU); kOutOfMemory / kDeviceFailure on the GPU.
  virtual void match(const DescriptorSetView& query, const DescriptorSetView& train,
                     const MatchParams& params, std::vector<Match>* out) = 0;

  // RANSAC: `iterations` deterministic hypotheses (minimal samples drawn from seed), scored by
  // counting pairs with reprojection error < threshold, best (most inliers, then the lowest
  // iteration) refined by least squares on its inliers. Deterministic for a seed; CPU and CUDA
  // give identical results on the same input. Too few pairs or only degenerate samples give
  // found = false. kNone gives found = false. Throws kInvalidArgument for a negative iteration
  // count or a threshold that is not positive.
  virtual MotionEstimate estimate_motion(const std::vector<PointPair>& pairs,
                                         const RansacParams& params) = 0;

  // One job of match(), the pairs of its matches and estimate_motion() on them, with the same
  // results as those calls (see MatchAndFitRequest). begin starts it and finish waits for it:
  // the CUDA matcher enqueues the whole job on its stream and waits once, in finish, so jobs of
  // two matchers run side by side on the GPU. The request's memory is read before begin
  // returns. One job at a time: begin throws kInvalidArgument while one is pending, finish
  // when none is. Errors as match() and estimate_motion(); after an error no job is pending.
  virtual void begin_match_and_fit(const MatchAndFitRequest& request) = 0;
  virtual void finish_match_and_fit(MatchAndFitResult* out) = 0;
  void match_and_fit(const MatchAndFitRequest& request, MatchAndFitResult* out) {
    begin_match_and_fit(request);
    finish_match_and_fit(out);
  }
};

// kAuto: CUDA when it is built in and a device is present, else the CPU. Throws gpusift::Error
// like create_extractor (kNoDevice when kCuda cannot be had).
std::unique_ptr<Matcher> create_matcher(Backend backend, int cuda_device_id = -1);
// A CUDA matcher on the context current on this thread (GStreamer elements push a
// GstCudaContext), with its own stream, selecting no device. Create, use and destroy it with
// that context current. Throws kNoDevice when CUDA is not built in.
std::unique_ptr<Matcher> create_cuda_matcher_on_current_context();

}  // namespace gpusift
