// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-bench-streams: N extractors in one process (gpusiftfilter instances, each with its own
// stream), all extracting NV12 frames from pinned host memory at once; the aggregate frame rate
// for each N, how it scales against one instance, each instance's memory and, with --timeline,
// how much of the time the instances' frames were on the GPU together.
#include <cuda_runtime.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <opencv2/core.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpusift/cuda_sift.h"
#include "machine_info.h"
#include "nv12_frame.h"
#include "pnm_reader.h"
#include "streams_options.h"
#include "streams_run.h"

namespace gpusift::tools {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

void print_header(const StreamsOptions& options) {
  cudaDeviceProp properties{};
  cudaGetDeviceProperties(&properties, 0);
  std::printf(
      "gpusift-bench-streams %s; GPU: %s; CPU: %s; %dx%d NV12 from pinned host memory (%s), "
      "SIFT video mode (gpusiftfilter defaults), float descriptors; %d frames per instance after "
      "%d warm-up; %d frame%s "
      "in flight; legacy-stream wait %s; %d GPU%s (instance i on device i mod %d)\n\n",
      current_utc_time().c_str(), properties.name, cpu_model_name().c_str(), options.width,
      options.height, options.image.c_str(), options.frames, options.warm_up, options.in_flight,
      options.in_flight == 1 ? "" : "s", options.legacy_wait ? "on" : "off", options.gpus,
      options.gpus == 1 ? "" : "s", options.gpus);
  std::printf(
      "| streams | aggregate fps | per-stream fps | aggregate / (N x single-stream fps) | device "
      "MiB per instance | pinned MiB per instance | cudaMemGetInfo growth MiB per instance | "
      "keypoints");
  if (options.timeline)
    std::printf(" | time with >= 2 instances on the GPU | max concurrency");
  std::printf(" |\n|---|---|---|---|---|---|---|---");
  if (options.timeline)
    std::printf("|---|---");
  std::printf("|\n");
  std::fflush(stdout);
}

void print_row(const StreamsResult& r, double single_fps, bool timeline) {
  std::printf("| %d | %.0f | %.0f | %.2f | %.1f | %.1f | %.1f | %d", r.streams, r.aggregate_fps,
              r.aggregate_fps / r.streams, r.aggregate_fps / (r.streams * single_fps),
              r.device_bytes / kMiB, r.pinned_bytes / kMiB, r.used_growth_bytes / kMiB,
              r.keypoints);
  if (timeline) {
    const double share = r.overlap.span_ms > 0 ? r.overlap.overlapped_ms / r.overlap.span_ms : 0;
    std::printf(" | %.1f %% of %.0f ms | %d", 100 * share, r.overlap.span_ms,
                r.overlap.max_concurrency);
  }
  std::printf(" |\n");
  std::fflush(stdout);
}

int run(const StreamsOptions& options) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || cudaSetDevice(0) != cudaSuccess)
    throw std::runtime_error("no CUDA device");
  if (options.gpus > devices)
    throw std::runtime_error("--gpus " + std::to_string(options.gpus) + " but " +
                             std::to_string(devices) + " CUDA device(s)");
  const cv::Mat image = testing::read_pnm(options.image);
  if (image.empty())
    throw std::runtime_error("cannot read " + options.image + " (binary PGM or PPM)");
  const std::vector<uint8_t> nv12 = make_nv12(image, options.width, options.height);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> csv(nullptr, std::fclose);
  if (!options.timeline_csv.empty()) {
    csv.reset(std::fopen(options.timeline_csv.c_str(), "w"));
    if (!csv)
      throw std::runtime_error("cannot write " + options.timeline_csv);
  }

  print_header(options);
  // The scaling column's reference, a run of its own, which also warms the process up.
  const StreamsResult single = run_streams(options, nv12, 1);
  for (size_t i = 0; i < options.streams.size(); ++i) {
    const StreamsResult result = run_streams(options, nv12, options.streams[i]);
    print_row(result, single.aggregate_fps, options.timeline);
    if (csv)
      write_intervals_csv(csv.get(), result.streams, result.intervals, i == 0);
  }
  std::printf(
      "\nAggregate fps: all instances' frames over the wall time from their common start (after "
      "the warm-up) to the last one's last results. Device and pinned MiB: the extractor's "
      "reserved buffers (the pinned input frame, %.1f MiB, not counted); cudaMemGetInfo growth: "
      "the device's used memory after the warm-up less before, over N.\n",
      nv12.size() / kMiB);
  return 0;
}

}  // namespace
}  // namespace gpusift::tools

int main(int argc, char** argv) {
  gpusift::tools::StreamsOptions options;
  const std::string error = gpusift::tools::parse_streams_options(argc, argv, &options);
  if (!error.empty()) {
    std::fprintf(stderr, "gpusift-bench-streams: %s\n%s", error.c_str(),
                 gpusift::tools::kStreamsUsage);
    return 2;
  }
  try {
    return gpusift::tools::run(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpusift-bench-streams: %s\n", e.what());
    return 2;
  }
}
