// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-bench: gpusift's backends against OpenCV's SIFT, one markdown table on stdout.
#include <cstdio>
#include <memory>
#include <opencv2/core.hpp>
#include <opencv2/features2d.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_options.h"
#include "bench_table.h"
#include "gpusift/cpu_sift.h"
#include "gpusift/error.h"
#include "gpusift/extractor.h"
#include "machine_info.h"
#include "median_timing.h"
#include "muted_stderr.h"

namespace gpusift::tools {

namespace {

cv::Mat load_gray(const std::string& path) {
  cv::Mat gray;
  {
    const MutedStderr muted;
    gray = cv::imread(path, cv::IMREAD_GRAYSCALE);
  }
  if (gray.empty())
    throw std::runtime_error("cannot read image " + path);
  return gray;
}

cv::Mat resized(const cv::Mat& gray, FrameSize size) {
  const bool enlarging = size.width > gray.cols || size.height > gray.rows;
  cv::Mat out;
  cv::resize(gray, out, cv::Size(size.width, size.height), 0, 0,
             enlarging ? cv::INTER_CUBIC : cv::INTER_AREA);
  return out;
}

Timing time_opencv(const cv::Mat& frame, int runs) {
  const cv::Ptr<cv::SIFT> sift = cv::SIFT::create();
  std::vector<cv::KeyPoint> keypoints;
  cv::Mat descriptors;
  const double ms = median_milliseconds(
      runs, [&] { sift->detectAndCompute(frame, cv::noArray(), keypoints, descriptors); });
  return {ms, static_cast<int>(keypoints.size())};
}

Timing time_ours(const cv::Mat& frame, Backend backend, bool upscale, int runs) {
  SiftParams params;
  params.upscale = upscale;
  const std::unique_ptr<Extractor> extractor = create_extractor(backend, params);
  Features features;
  const double ms = median_milliseconds(runs, [&] {
    extractor->extract_gray8(frame.data, frame.step, frame.cols, frame.rows, &features);
  });
  return {ms, static_cast<int>(features.keypoints.size())};
}

int runs_for(Backend backend, const BenchOptions& options) {
  if (options.runs > 0)
    return options.runs;
  return backend == Backend::kCuda ? kDefaultCudaRuns : kDefaultHostRuns;
}

// Drops cuda when no device can run it; returns the note to print, or "".
std::string drop_unavailable_backends(std::vector<Backend>* backends) {
  std::vector<Backend> available;
  std::string note;
  for (Backend backend : *backends) {
    if (backend == Backend::kCuda && cuda_device_count() == 0)
      note = "\nNote: cuda rows skipped: no CUDA device present (or the backend is not built).\n";
    else
      available.push_back(backend);
  }
  *backends = available;
  return note;
}

void print_line(const std::string& text) {
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);  // rows of large frames take a while; show each as it comes
}

void run_benchmark(const BenchOptions& options) {
  const cv::Mat source = load_gray(options.image_path);
  std::vector<Backend> backends = options.backends;
  const std::string skipped_note = drop_unavailable_backends(&backends);

  print_line("gpusift-bench " + current_utc_time() + "; CPU: " + cpu_model_name() +
             "; threads: gpusift " + std::to_string(cpu_thread_count()) + ", OpenCV " +
             std::to_string(cv::getNumThreads()) + "; image: " + options.image_path + "\n\n");
  print_line(bench_table_header());
  for (const FrameSize& size : options.sizes) {
    const cv::Mat frame = resized(source, size);
    const Timing opencv = time_opencv(frame, runs_for(Backend::kCpu, options));
    for (bool upscale : options.upscales) {
      for (Backend backend : backends) {
        const Timing ours = time_ours(frame, backend, upscale, runs_for(backend, options));
        print_line(bench_table_row(BenchRow{size, upscale, backend, ours, opencv}));
      }
    }
  }
  print_line(bench_table_footnote() + skipped_note);
}

int fail(const std::string& message) {
  std::fprintf(stderr, "gpusift-bench: %s\n", message.c_str());
  return 2;
}

int run(int argc, const char* const* argv) {
  BenchOptions options;
  const std::string error = parse_bench_options(argc, argv, &options);
  if (!error.empty())
    return fail(error);
  if (options.show_help) {
    std::fputs(bench_usage(), stdout);
    return 0;
  }
  try {
    run_benchmark(options);
  } catch (const cv::Exception& e) {
    return fail("OpenCV: " + e.err);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  return 0;
}

}  // namespace

}  // namespace gpusift::tools

int main(int argc, char** argv) {
  return gpusift::tools::run(argc, argv);
}
