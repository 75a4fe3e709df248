// SPDX-License-Identifier: LGPL-2.1-or-later
#include "sweep_tables.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <stdexcept>

#include "cost_fit.h"
#include "cuda_event_timer.h"
#include "gpusift/cuda_sift.h"
#include "gpusift/cuda_surf.h"

namespace gpusift::tools {

namespace {

// From strict to loose: the first points have a few dozen keypoints (the fixed cost), the last
// ones tens of thousands on a busy 4K frame. 0.04 and 100 are the defaults.
const float kContrastThresholds[] = {0.64f, 0.32f, 0.16f, 0.08f, 0.04f, 0.02f, 0.01f};
const double kHessianThresholds[] = {51200, 12800, 3200, 800, 200, 100, 50};

// A pinned host copy of a frame, the element's path from system memory (the upload included).
class PinnedFrame {
 public:
  explicit PinnedFrame(const cv::Mat& gray) : width_(gray.cols), height_(gray.rows) {
    if (cudaMallocHost(&data_, gray.total()) != cudaSuccess)
      throw std::runtime_error("cannot allocate a pinned frame");
    for (int row = 0; row < height_; ++row)
      std::memcpy(static_cast<uint8_t*>(data_) + static_cast<size_t>(row) * width_, gray.ptr(row),
                  width_);
  }
  ~PinnedFrame() { cudaFreeHost(data_); }
  PinnedFrame(const PinnedFrame&) = delete;
  PinnedFrame& operator=(const PinnedFrame&) = delete;

  FrameView view() const {
    return FrameView{data_,   static_cast<size_t>(width_), width_,
                     height_, PixelFormat::kGray8,         MemoryKind::kHost};
  }

 private:
  void* data_ = nullptr;
  int width_, height_;
};

template <typename Extractor>
CostPoint time_pinned(Extractor& extractor, const PinnedFrame& frame, const SweepOptions& options,
                      cudaStream_t stream) {
  Features features;
  CudaEventTimer timer;
  extractor.set_host_frame_access(HostFrameAccess::kCopy);
  const double ms = timer.median_ms(stream, options.warm_up, options.frames,
                                    [&] { extractor.extract(frame.view(), stream, &features); });
  return CostPoint{static_cast<int>(features.keypoints.size()), ms};
}

SiftParams sift_at(float contrast_threshold) {
  SiftParams params = video_sift_params();
  params.contrast_threshold = contrast_threshold;
  return params;
}

template <typename Extractor>
int count_once(Extractor& extractor, const PinnedFrame& frame, cudaStream_t stream) {
  Features features;
  extractor.extract(frame.view(), stream, &features);
  return static_cast<int>(features.keypoints.size());
}

// The contrast threshold whose keypoint count is nearest `wanted` (bisected on a log scale).
float threshold_for_count(const PinnedFrame& frame, int wanted, cudaStream_t stream) {
  double strict = 2.0, loose = 1e-4;  // counts rise as the threshold falls
  double best = kContrastThresholds[4];
  long best_distance = -1;
  for (int step = 0; step < 16; ++step) {
    const double middle = std::sqrt(strict * loose);
    CudaSiftExtractor extractor(sift_at(static_cast<float>(middle)));
    const int count = count_once(extractor, frame, stream);
    const long distance = std::labs(static_cast<long>(count) - wanted);
    if (best_distance < 0 || distance < best_distance) {
      best = middle;
      best_distance = distance;
    }
    if (distance * 100 <= static_cast<long>(wanted))  // within 1 %
      break;
    (count > wanted ? loose : strict) = middle;
  }
  return static_cast<float>(best);
}

void print_points(const std::vector<CostPoint>& points) {
  for (const CostPoint& p : points)
    std::printf(" %d@%.3f", p.keypoints, p.ms);
}

void print_cost_row(const NamedFrame& frame, const char* method,
                    const std::vector<CostPoint>& points, const CostPoint& defaults) {
  const CostFit fit = fit_cost(points);
  std::printf("| %s | %dx%d | %s | %d | %.3f | %d | %.3f | ", frame.name.c_str(), frame.gray.cols,
              frame.gray.rows, method, defaults.keypoints, defaults.ms, points.front().keypoints,
              points.front().ms);
  if (fit.valid)
    std::printf("%.3f | %.1f | %.3f |", fit.fixed_ms, fit.ns_per_keypoint, fit.worst_residual_ms);
  else
    std::printf("- | - | - |");
  print_points(points);
  std::printf(" |\n");
  std::fflush(stdout);
}

void print_cost_tables(const std::vector<NamedFrame>& frames, const SweepOptions& options,
                       cudaStream_t stream) {
  std::printf(
      "| frame | size | method | default kp | default ms | fewest kp | ms at fewest | fit: fixed "
      "ms | fit: ns per kp | fit: worst residual ms | sweep (kp@ms) |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const NamedFrame& frame : frames) {
    const PinnedFrame pinned(frame.gray);
    std::vector<CostPoint> sift, surf;
    CostPoint sift_default{}, surf_default{};
    for (float threshold : kContrastThresholds) {
      CudaSiftExtractor extractor(sift_at(threshold));
      sift.push_back(time_pinned(extractor, pinned, options, stream));
      if (threshold == video_sift_params().contrast_threshold)
        sift_default = sift.back();
    }
    for (double threshold : kHessianThresholds) {
      SurfParams params;
      params.hessian_threshold = threshold;
      CudaSurfExtractor extractor(params);
      surf.push_back(time_pinned(extractor, pinned, options, stream));
      if (threshold == SurfParams{}.hessian_threshold)
        surf_default = surf.back();
    }
    print_cost_row(frame, "SIFT video", sift, sift_default);
    print_cost_row(frame, "SURF", surf, surf_default);
  }
  std::printf(
      "\nContrast thresholds (SIFT, video mode) %.2f to %.2f and Hessian thresholds (SURF) %.0f "
      "to %.0f; pinned GRAY8 with the upload, keypoints and descriptors on the host. The fit "
      "is a least-squares line through the sweep.\n\n",
      kContrastThresholds[0], kContrastThresholds[std::size(kContrastThresholds) - 1],
      kHessianThresholds[0], kHessianThresholds[std::size(kHessianThresholds) - 1]);
}

void print_cap_table(const std::vector<NamedFrame>& frames, const SweepOptions& options,
                     cudaStream_t stream) {
  std::printf(
      "| frame | size | N | threshold for N | its kp | its ms | nfeatures=N global ms | global / "
      "threshold | nfeatures=N grid ms | grid / global |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n");
  for (const NamedFrame& frame : frames) {
    const PinnedFrame pinned(frame.gray);
    CudaSiftExtractor all(video_sift_params());
    const int available = count_once(all, pinned, stream);
    for (int budget : options.budgets) {
      if (budget >= available)
        continue;  // the cap would cut nothing
      const float threshold = threshold_for_count(pinned, budget, stream);
      CudaSiftExtractor by_threshold(sift_at(threshold));
      const CostPoint at_threshold = time_pinned(by_threshold, pinned, options, stream);
      SiftParams capped = video_sift_params();
      capped.nfeatures = budget;
      CudaSiftExtractor global(capped);
      const CostPoint global_point = time_pinned(global, pinned, options, stream);
      capped.distribution = KeypointDistribution::kGrid;
      CudaSiftExtractor grid(capped);
      const CostPoint grid_point = time_pinned(grid, pinned, options, stream);
      std::printf("| %s | %dx%d | %d | %.4f | %d | %.3f | %.3f | %.2f | %.3f | %.2f |\n",
                  frame.name.c_str(), frame.gray.cols, frame.gray.rows, budget, threshold,
                  at_threshold.keypoints, at_threshold.ms, global_point.ms,
                  global_point.ms / at_threshold.ms, grid_point.ms,
                  grid_point.ms / global_point.ms);
      std::fflush(stdout);
    }
  }
  std::printf(
      "\nSIFT video mode at the default threshold with nfeatures (global: the N strongest; grid: "
      "spread), against the contrast threshold whose count is nearest N without a cap.\n\n");
}

}  // namespace

void print_sweep_tables(const std::vector<NamedFrame>& frames, const SweepOptions& options,
                        cudaStream_t stream) {
  print_cost_tables(frames, options, stream);
  print_cap_table(frames, options, stream);
}

}  // namespace gpusift::tools
