// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-bench-match: the CUDA matcher on 4096 x 4096 SIFT descriptors (descriptors already on
// the device, matches back on the host), RANSAC on its matches, and the two together; beside the
// CPU backend and OpenCV's brute-force matcher in the same process.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <opencv2/core.hpp>
#include <opencv2/features2d.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpusift/cpu_matcher.h"
#include "gpusift/cpu_sift.h"
#include "gpusift/cuda_matcher.h"
#include "gpusift/ransac.h"
#include "machine_info.h"
#include "match_workload.h"

namespace gpusift::tools {
namespace {

struct Options {
  std::string data_dir = GPUSIFT_BENCH_DATA_DIR;
  int count = 4096;
  int runs = 500;
  int warm_up = 50;
  int cpu_runs = 3;
};

// Returns an error message, or "" when the arguments are good.
std::string parse_options(int argc, char** argv, Options* options) {
  if (const char* dir = std::getenv("GPUSIFT_TEST_DATA_DIR"))
    options->data_dir = dir;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc)
      return "missing value for " + flag;
    const std::string value = argv[++i];
    if (flag == "--data-dir")
      options->data_dir = value;
    else if (flag == "--count")
      options->count = std::atoi(value.c_str());
    else if (flag == "--runs")
      options->runs = std::atoi(value.c_str());
    else if (flag == "--warm-up")
      options->warm_up = std::atoi(value.c_str());
    else if (flag == "--cpu-runs")
      options->cpu_runs = std::atoi(value.c_str());
    else
      return "unknown option " + flag;
  }
  if (options->count < 1 || options->runs < 1 || options->warm_up < 0 || options->cpu_runs < 1)
    return "--count, --runs and --cpu-runs must be >= 1, --warm-up >= 0";
  return "";
}

// Median wall-clock milliseconds of `run` over `runs` calls after `warm_up` untimed ones. Every
// timed call ends with its results on the host (the matcher waits for its stream).
template <typename Run>
double median_ms(int warm_up, int runs, Run&& run) {
  for (int i = 0; i < warm_up; ++i)
    run();
  std::vector<double> times(runs);
  for (double& t : times) {
    const auto start = std::chrono::steady_clock::now();
    run();
    t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  std::nth_element(times.begin(), times.begin() + runs / 2, times.end());
  return times[runs / 2];
}

// A descriptor array in device memory for the benchmark's lifetime.
class DeviceArray {
 public:
  DeviceArray(const void* host, size_t bytes) {
    if (cudaMalloc(&data_, bytes) != cudaSuccess ||
        cudaMemcpy(data_, host, bytes, cudaMemcpyHostToDevice) != cudaSuccess)
      throw std::runtime_error("cannot copy the descriptors to the device");
  }
  ~DeviceArray() { cudaFree(data_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  const void* get() const { return data_; }

 private:
  void* data_ = nullptr;
};

DescriptorSetView view_of(const void* data, int count, DescriptorFormat format, MemoryKind memory) {
  return DescriptorSetView{data, count, kSiftDescriptorSize, format, memory};
}

std::vector<PointXY> positions(const std::vector<Keypoint>& keypoints) {
  std::vector<PointXY> points;
  for (const Keypoint& k : keypoints)
    points.push_back(PointXY{k.x, k.y});
  return points;
}

bool same_result(const MatchAndFitResult& a, const MatchAndFitResult& b) {
  return a.matches.size() == b.matches.size() &&
         std::memcmp(a.matches.data(), b.matches.data(), a.matches.size() * sizeof(Match)) == 0 &&
         a.motion.found == b.motion.found && a.motion.inliers == b.motion.inliers &&
         std::memcmp(a.motion.matrix, b.motion.matrix, sizeof(a.motion.matrix)) == 0 &&
         a.motion.inlier_mask == b.motion.inlier_mask;
}

void print_row(const char* what, double ms, const char* note = "") {
  std::printf("| %s | %.4f | %s |\n", what, ms, note);
  std::fflush(stdout);
}

int run(const Options& options) {
  const ScopedCudaDevice device(0);
  const OwnedCudaStream stream(device);
  cudaDeviceProp properties{};
  cudaGetDeviceProperties(&properties, device.id());
  const MatchWorkload w = make_match_workload(options.data_dir, options.count);
  const int n = options.count;
  const std::vector<uint8_t> query_bytes = to_bytes(w.query.float_descriptors);
  const std::vector<uint8_t> train_bytes = to_bytes(w.train.float_descriptors);
  const size_t float_bytes = static_cast<size_t>(n) * kSiftDescriptorSize * sizeof(float);
  const DeviceArray dq(w.query.float_descriptors.data(), float_bytes);
  const DeviceArray dt(w.train.float_descriptors.data(), float_bytes);
  const DeviceArray dq8(query_bytes.data(), query_bytes.size());
  const DeviceArray dt8(train_bytes.data(), train_bytes.size());
  const auto kDevice = MemoryKind::kDevice, kHost = MemoryKind::kHost;
  const auto kFloat = DescriptorFormat::kFloat, kUint8 = DescriptorFormat::kUint8;

  std::printf(
      "gpusift-bench-match %s; GPU: %s; CPU: %s (%d threads); %d x %d descriptors of 128: %s; "
      "median of %d runs after %d warm-up (wall clock, results on the host); ratio 0.8; RANSAC "
      "homography, 512 iterations, 3 px\n\n",
      current_utc_time().c_str(), properties.name, cpu_model_name().c_str(), cpu_thread_count(), n,
      n, w.description.c_str(), options.runs, options.warm_up);
  std::printf("| step | median ms | notes |\n|---|---|---|\n");

  CudaMatcher gpu;
  std::vector<Match> matches;
  const MatchParams ratio_only{0.8f, false}, cross{0.8f, true};
  const auto match_device = [&] {
    gpu.match(view_of(dq.get(), n, kFloat, kDevice), view_of(dt.get(), n, kFloat, kDevice),
              ratio_only, stream.get(), &matches);
  };
  const double match_ms = median_ms(options.warm_up, options.runs, match_device);
  const std::string match_note = std::to_string(matches.size()) + " matches, " +
                                 std::to_string(gpu.last_exhaustive_rows()) + " rows scanned";
  print_row("CUDA match, float, device input", match_ms, match_note.c_str());
  print_row("CUDA match, float, device input, cross-check",
            median_ms(options.warm_up, options.runs, [&] {
              gpu.match(view_of(dq.get(), n, kFloat, kDevice),
                        view_of(dt.get(), n, kFloat, kDevice), cross, stream.get(), &matches);
            }));
  print_row("CUDA match, float, host input (upload included)",
            median_ms(options.warm_up, options.runs, [&] {
              gpu.match(view_of(w.query.float_descriptors.data(), n, kFloat, kHost),
                        view_of(w.train.float_descriptors.data(), n, kFloat, kHost), ratio_only,
                        stream.get(), &matches);
            }));
  print_row("CUDA match, uint8, device input", median_ms(options.warm_up, options.runs, [&] {
              gpu.match(view_of(dq8.get(), n, kUint8, kDevice),
                        view_of(dt8.get(), n, kUint8, kDevice), ratio_only, stream.get(), &matches);
            }));

  match_device();
  std::vector<PointPair> pairs;
  point_pairs_from_matches(matches, w.query.keypoints, w.train.keypoints, &pairs);
  const RansacParams ransac;
  MotionEstimate estimate;
  const double ransac_ms = median_ms(options.warm_up, options.runs, [&] {
    estimate = gpu.estimate_motion(pairs, ransac, stream.get());
  });
  const std::string ransac_note = std::to_string(pairs.size()) + " pairs, " +
                                  std::to_string(estimate.inliers) + " inliers" +
                                  (estimate.found ? "" : ", not found");
  print_row("CUDA RANSAC homography (host refit included)", ransac_ms, ransac_note.c_str());
  std::vector<uint8_t> winner_mask;
  const RansacWinner winner =
      score_winner_on_cpu(pairs, ransac, best_hypothesis_on_cpu(pairs, ransac), &winner_mask);
  print_row("  of which the host refit", median_ms(options.warm_up, options.runs, [&] {
              estimate = complete_motion_estimate(pairs, ransac, winner, winner_mask);
            }));
  print_row("CUDA match, pairs, RANSAC as separate calls",
            median_ms(options.warm_up, options.runs, [&] {
              match_device();
              point_pairs_from_matches(matches, w.query.keypoints, w.train.keypoints, &pairs);
              estimate = gpu.estimate_motion(pairs, ransac, stream.get());
            }));

  const std::vector<PointXY> query_points = positions(w.query.keypoints);
  const std::vector<PointXY> train_points = positions(w.train.keypoints);
  MatchAndFitRequest job;
  job.query = view_of(dq.get(), n, kFloat, kDevice);
  job.train = view_of(dt.get(), n, kFloat, kDevice);
  job.query_points = query_points.data();
  job.train_points = train_points.data();
  job.match = ratio_only;
  job.ransac = ransac;
  MatchAndFitResult fitted;
  const double job_ms = median_ms(options.warm_up, options.runs, [&] {
    gpu.begin_match_and_fit(job, stream.get());
    gpu.finish_match_and_fit(&fitted);
  });
  MatchAndFitRequest host_job = job;
  host_job.query = view_of(w.query.float_descriptors.data(), n, kFloat, kHost);
  host_job.train = view_of(w.train.float_descriptors.data(), n, kFloat, kHost);
  MatchAndFitResult cpu_fitted;
  CpuMatcher cpu;
  cpu.match_and_fit(host_job, &cpu_fitted);
  const bool job_identical = same_result(fitted, cpu_fitted);
  const std::string job_note = std::to_string(fitted.matches.size()) + " matches, " +
                               std::to_string(fitted.motion.inliers) + " inliers; " +
                               (job_identical ? "CUDA == CPU, bit for bit" : "**CUDA != CPU**");
  print_row("**CUDA match + pairs + RANSAC, one job** (target <= 0.15)", job_ms, job_note.c_str());

  const OwnedCudaStream second_stream(device);
  CudaMatcher second;
  MatchAndFitResult second_fitted;
  print_row("two such jobs side by side (two matchers and streams)",
            median_ms(options.warm_up, options.runs, [&] {
              gpu.begin_match_and_fit(job, stream.get());
              second.begin_match_and_fit(job, second_stream.get());
              gpu.finish_match_and_fit(&fitted);
              second.finish_match_and_fit(&second_fitted);
            }));

  std::vector<Match> cpu_matches;
  const double cpu_ms = median_ms(1, options.cpu_runs, [&] {
    cpu.match(view_of(w.query.float_descriptors.data(), n, kFloat, kHost),
              view_of(w.train.float_descriptors.data(), n, kFloat, kHost), ratio_only,
              &cpu_matches);
  });
  match_device();
  const bool identical =
      matches.size() == cpu_matches.size() &&
      std::memcmp(matches.data(), cpu_matches.data(), matches.size() * sizeof(Match)) == 0;
  print_row("CPU backend match, float", cpu_ms,
            identical ? "CUDA == CPU, bit for bit" : "**CUDA != CPU**");
  print_row("CPU backend RANSAC homography",
            median_ms(1, options.cpu_runs, [&] { estimate = cpu.estimate_motion(pairs, ransac); }));

  const cv::Mat q(n, kSiftDescriptorSize, CV_32F,
                  const_cast<float*>(w.query.float_descriptors.data()));
  const cv::Mat t(n, kSiftDescriptorSize, CV_32F,
                  const_cast<float*>(w.train.float_descriptors.data()));
  cv::BFMatcher bf(cv::NORM_L2);
  std::vector<std::vector<cv::DMatch>> knn;
  const double opencv_ms = median_ms(1, options.cpu_runs, [&] { bf.knnMatch(q, t, knn, 2); });
  const std::string ratio_note = "OpenCV / CUDA " + std::to_string(opencv_ms / match_ms) + "x, " +
                                 std::to_string(cv::getNumThreads()) + " threads";
  print_row("OpenCV BFMatcher knnMatch k=2, float (CPU)", opencv_ms, ratio_note.c_str());
  return identical && job_identical ? 0 : 1;
}

}  // namespace
}  // namespace gpusift::tools

int main(int argc, char** argv) {
  gpusift::tools::Options options;
  const std::string error = gpusift::tools::parse_options(argc, argv, &options);
  if (!error.empty()) {
    std::fprintf(stderr,
                 "gpusift-bench-match: %s\nusage: gpusift-bench-match [--data-dir DIR] "
                 "[--count N] [--runs N] [--warm-up N] [--cpu-runs N]\n",
                 error.c_str());
    return 2;
  }
  try {
    return gpusift::tools::run(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpusift-bench-match: %s\n", e.what());
    return 2;
  }
}
