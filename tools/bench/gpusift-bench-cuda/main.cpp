// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-bench-cuda: the CUDA backend per frame size, from pinned host GRAY8 (upload included)
// and from device memory, beside OpenCV's SIFT on the CPU in the same process; then CUDA SURF
// beside CUDA SIFT without upscaling. --tables sweep: time against keypoint count on busy frames
// (sweep_tables.h).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "cuda_event_timer.h"
#include "gpusift/cpu_sift.h"
#include "gpusift/cuda_sift.h"
#include "gpusift/cuda_surf.h"
#include "gpusift/error.h"
#include "machine_info.h"
#include "median_timing.h"
#include "pnm_reader.h"
#include "sweep_tables.h"

namespace gpusift::tools {
namespace {

struct Options {
  // "{size}" in the path stands for WxH: a file per size, as the reference's frames in
  // ratio-rounds.sh; otherwise the image is resized to each size.
  std::string image = "tests/data/astronaut.pnm";
  // --tables sweep: a fine texture and a cluttered photo.
  std::vector<std::string> busy_images = {"tests/data/gravel.pnm", "tests/data/coffee.pnm"};
  int frames = 200;
  int warm_up = 10;
  int opencv_runs = 5;
  std::string tables = "all";  // sift: the SIFT table alone; sweep: the busy frames' tables
  std::vector<int> budgets = SweepOptions{}.budgets;
  std::vector<cv::Size> sizes = {{640, 480}, {1280, 720}, {1920, 1080}, {3840, 2160}};
};

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(',', start), text.size());
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

bool parse_budgets(const std::string& text, std::vector<int>* budgets) {
  budgets->clear();
  for (const std::string& part : split_commas(text)) {
    char* end = nullptr;
    const long value = std::strtol(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0' || value < 1 || value > (1 << 22))
      return false;
    budgets->push_back(static_cast<int>(value));
  }
  return true;
}

// GRAY8 at `size`: the image resized (area when shrinking, cubic when growing), or with "{size}"
// in the path, the file of that size as it is.
cv::Mat load_frame(const std::string& path, cv::Size size) {
  const std::string marker = "{size}";
  const size_t at = path.find(marker);
  std::string file = path;
  if (at != std::string::npos)
    file.replace(at, marker.size(), std::to_string(size.width) + "x" + std::to_string(size.height));
  cv::Mat source = testing::read_pnm(file);
  if (source.empty())
    throw std::runtime_error("cannot read " + file);
  if (source.channels() == 3)
    cv::cvtColor(source, source, cv::COLOR_BGR2GRAY);
  if (at != std::string::npos) {
    if (source.size() != size)
      throw std::runtime_error(file + " is not " + std::to_string(size.width) + "x" +
                               std::to_string(size.height));
    return source;
  }
  cv::Mat frame;
  cv::resize(source, frame, size, 0, 0,
             size.width > source.cols ? cv::INTER_CUBIC : cv::INTER_AREA);
  return frame;
}

bool parse_sizes(const std::string& text, std::vector<cv::Size>* sizes) {
  sizes->clear();
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(',', start), text.size());
    int w = 0, h = 0;
    if (std::sscanf(text.substr(start, end - start).c_str(), "%dx%d", &w, &h) != 2 || w < 1 ||
        h < 1)
      return false;
    sizes->emplace_back(w, h);
    start = end + 1;
  }
  return !sizes->empty();
}

// Returns an error message, or "" when the arguments are good.
std::string parse_options(int argc, char** argv, Options* options) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc)
      return "missing value for " + flag;
    const std::string value = argv[++i];
    if (flag == "--image") {
      options->image = value;
    } else if (flag == "--frames") {
      options->frames = std::atoi(value.c_str());
    } else if (flag == "--warm-up") {
      options->warm_up = std::atoi(value.c_str());
    } else if (flag == "--opencv-runs") {
      options->opencv_runs = std::atoi(value.c_str());
    } else if (flag == "--busy-images") {
      options->busy_images = split_commas(value);
    } else if (flag == "--budgets") {
      if (!parse_budgets(value, &options->budgets))
        return "bad --budgets " + value;
    } else if (flag == "--tables") {
      if (value != "sift" && value != "all" && value != "sweep")
        return "bad --tables " + value + " (sift, all or sweep)";
      options->tables = value;
    } else if (flag == "--sizes") {
      if (!parse_sizes(value, &options->sizes))
        return "bad --sizes " + value;
    } else {
      return "unknown option " + flag;
    }
  }
  if (options->frames < 1 || options->warm_up < 0 || options->opencv_runs < 1)
    return "--frames and --opencv-runs must be >= 1, --warm-up >= 0";
  return "";
}

struct Timing {
  double pinned_ms, device_ms, pageable_ms;
  // HostFrameAccess::kMapped: the kernels read the host frame in place (the integrated-GPU path).
  double mapped_pinned_ms, mapped_pageable_ms;
  int keypoints;
};

// off: upscale off with OpenCV's sigma; video: gpusiftfilter's defaults (upscale off, sigma
// 0.8); on: OpenCV's defaults, the parity mode.
struct SiftMode {
  const char* name;
  SiftParams params;
};

std::vector<SiftMode> sift_modes() {
  SiftParams off;
  off.upscale = false;
  return {{"off", off}, {"video", video_sift_params()}, {"on", SiftParams{}}};
}

struct Row {
  cv::Size size;
  const char* mode;
  Timing t;
  double opencv_ms;
  int opencv_keypoints;
};

// Median times of `extractor` on `frame` from pinned host memory, device memory and ordinary
// (pageable) host memory, which goes through a staging copy; host frames uploaded, then read in
// place.
template <typename Extractor>
Timing time_extractor(Extractor& extractor, const cv::Mat& frame, const Options& options,
                      cudaStream_t stream) {
  const size_t bytes = frame.total();
  void* pinned = nullptr;
  void* device = nullptr;
  if (cudaMallocHost(&pinned, bytes) != cudaSuccess || cudaMalloc(&device, bytes) != cudaSuccess)
    throw std::runtime_error("cannot allocate the input frames");
  std::memcpy(pinned, frame.data, bytes);
  cudaMemcpy(device, frame.data, bytes, cudaMemcpyHostToDevice);

  Features features;
  CudaEventTimer timer;
  const FrameView host_frame{pinned,
                             static_cast<size_t>(frame.cols),
                             frame.cols,
                             frame.rows,
                             PixelFormat::kGray8,
                             MemoryKind::kHost};
  const FrameView device_frame{device,
                               static_cast<size_t>(frame.cols),
                               frame.cols,
                               frame.rows,
                               PixelFormat::kGray8,
                               MemoryKind::kDevice};
  const std::vector<uint8_t> pageable(frame.data, frame.data + bytes);
  FrameView pageable_frame = host_frame;
  pageable_frame.data = pageable.data();
  const auto median_ms = [&](const FrameView& view) {
    return timer.median_ms(stream, options.warm_up, options.frames,
                           [&] { extractor.extract(view, stream, &features); });
  };
  Timing t{};
  extractor.set_host_frame_access(HostFrameAccess::kMapped);
  t.mapped_pinned_ms = median_ms(host_frame);
  t.mapped_pageable_ms = median_ms(pageable_frame);
  extractor.set_host_frame_access(HostFrameAccess::kCopy);
  t.pinned_ms = median_ms(host_frame);
  t.device_ms = median_ms(device_frame);
  t.pageable_ms = median_ms(pageable_frame);
  t.keypoints = static_cast<int>(features.keypoints.size());
  cudaFreeHost(pinned);
  cudaFree(device);
  return t;
}

Row measure(const cv::Mat& frame, const SiftMode& mode, const Options& options, double opencv_ms,
            int opencv_keypoints, cudaStream_t stream) {
  CudaSiftExtractor extractor(mode.params);
  return Row{frame.size(), mode.name, time_extractor(extractor, frame, options, stream), opencv_ms,
             opencv_keypoints};
}

void print_surf_row(const Row& sift, const Timing& surf) {
  std::printf("| %dx%d | %.3f | %d | %.3f | %.3f | %d | %.2f |\n", sift.size.width,
              sift.size.height, sift.t.pinned_ms, sift.t.keypoints, surf.pinned_ms, surf.device_ms,
              surf.keypoints, surf.pinned_ms / sift.t.pinned_ms);
  std::fflush(stdout);
}

// Where SURF's time goes: the same frames without orientation, without descriptors, or both.
void print_surf_variants(const std::vector<cv::Mat>& frames, const Options& options,
                         cudaStream_t stream) {
  std::printf(
      "| size | SURF ms | upright | no descriptors | upright, no descriptors |\n"
      "|---|---|---|---|---|\n");
  for (const cv::Mat& frame : frames) {
    std::printf("| %dx%d", frame.cols, frame.rows);
    for (int variant = 0; variant < 4; ++variant) {
      SurfParams params;
      params.upright = (variant & 1) != 0;
      if (variant & 2)
        params.descriptor = DescriptorFormat::kNone;
      CudaSurfExtractor surf{params};
      std::printf(" | %.3f", time_extractor(surf, frame, options, stream).pinned_ms);
    }
    std::printf(" |\n");
    std::fflush(stdout);
  }
}

// SURF with the Hessian threshold that makes it find about as many keypoints as SIFT (bisected on
// a log scale), which compares the two at equal output.
void print_surf_at_sift_count(const std::vector<cv::Mat>& frames, const std::vector<Row>& sift,
                              const Options& options, cudaStream_t stream) {
  std::printf(
      "\n| size | SIFT kp | SURF threshold | SURF kp | SURF ms | SURF / SIFT time |\n"
      "|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < frames.size(); ++i) {
    const cv::Mat& frame = frames[i];
    const auto count_at = [&](double threshold) {
      SurfParams params;
      params.hessian_threshold = threshold;
      CudaSurfExtractor surf{params};
      Features features;
      surf.extract(FrameView{frame.data, frame.step, frame.cols, frame.rows, PixelFormat::kGray8,
                             MemoryKind::kHost},
                   stream, &features);
      return static_cast<int>(features.keypoints.size());
    };
    double low = 100, high = 100000;
    for (int step = 0; step < 20; ++step) {
      const double middle = std::sqrt(low * high);
      (count_at(middle) > sift[i].t.keypoints ? low : high) = middle;
    }
    SurfParams params;
    params.hessian_threshold = high;
    CudaSurfExtractor surf{params};
    const Timing t = time_extractor(surf, frame, options, stream);
    std::printf("| %dx%d | %d | %.0f | %d | %.3f | %.2f |\n", frame.cols, frame.rows,
                sift[i].t.keypoints, high, t.keypoints, t.pinned_ms,
                t.pinned_ms / sift[i].t.pinned_ms);
    std::fflush(stdout);
  }
}

void print_row(const Row& r) {
  std::printf("| %dx%d | %s | %.3f | %.3f | %.3f | %d | %.1f | %d | %.0fx |\n", r.size.width,
              r.size.height, r.mode, r.t.pinned_ms, r.t.device_ms, r.t.pageable_ms, r.t.keypoints,
              r.opencv_ms, r.opencv_keypoints, r.opencv_ms / r.t.pinned_ms);
  std::fflush(stdout);
}

void print_host_frame_access(const std::vector<Row>& rows) {
  std::printf(
      "| size | pinned, uploaded ms | pinned, mapped ms | pageable, staged + uploaded ms | "
      "pageable, staged + mapped ms |\n|---|---|---|---|---|\n");
  for (const Row& r : rows)
    std::printf("| %dx%d | %.3f | %.3f | %.3f | %.3f |\n", r.size.width, r.size.height,
                r.t.pinned_ms, r.t.mapped_pinned_ms, r.t.pageable_ms, r.t.mapped_pageable_ms);
  std::printf(
      "\nSIFT, upscale off. Mapped: the first kernel reads the host frame in place "
      "(host-frame-access=mapped, the default on integrated GPUs); on a discrete GPU it reads "
      "across PCIe.\n\n");
  std::fflush(stdout);
}

int run(const Options& options) {
  const ScopedCudaDevice device(0);
  const OwnedCudaStream stream(device);
  cudaDeviceProp properties{};
  cudaGetDeviceProperties(&properties, device.id());
  std::printf(
      "gpusift-bench-cuda %s; GPU: %s; CPU: %s; OpenCV threads %d; median of %d frames "
      "after %d warm-up (CUDA events); OpenCV median of %d runs\n\n",
      current_utc_time().c_str(), properties.name, cpu_model_name().c_str(), cv::getNumThreads(),
      options.frames, options.warm_up, options.opencv_runs);
  if (options.tables == "sweep") {
    std::vector<NamedFrame> frames;
    for (const std::string& image : options.busy_images) {
      const std::string name = image.substr(image.find_last_of('/') + 1);
      for (cv::Size size : options.sizes)
        frames.push_back(NamedFrame{name, load_frame(image, size)});
    }
    print_sweep_tables(frames, SweepOptions{options.frames, options.warm_up, options.budgets},
                       stream.get());
    return 0;
  }
  std::printf(
      "| size | mode | cuda ms (pinned GRAY8, with H2D) | cuda ms (device input) | cuda ms "
      "(pageable GRAY8, staged) | cuda kp | OpenCV ms | OpenCV kp | OpenCV / cuda "
      "|\n|---|---|---|---|---|---|---|---|---|\n");
  const cv::Ptr<cv::SIFT> sift = cv::SIFT::create();
  std::vector<cv::Mat> frames;
  std::vector<Row> sift_native;  // upscale off, for the SURF table
  for (cv::Size size : options.sizes) {
    const cv::Mat frame = load_frame(options.image, size);
    std::vector<cv::KeyPoint> keypoints;
    cv::Mat descriptors;
    const double opencv_ms = median_milliseconds(options.opencv_runs, [&] {
      sift->detectAndCompute(frame, cv::noArray(), keypoints, descriptors);
    });
    for (const SiftMode& mode : sift_modes()) {
      const Row row = measure(frame, mode, options, opencv_ms, static_cast<int>(keypoints.size()),
                              stream.get());
      print_row(row);
      if (std::strcmp(mode.name, "off") == 0)
        sift_native.push_back(row);
    }
    frames.push_back(frame);
  }
  std::printf(
      "\nModes: off, upscale off with OpenCV's sigma 1.6; video, gpusiftfilter's defaults "
      "(upscale off, sigma 0.8, five octaves); on, OpenCV's defaults (parity). OpenCV always "
      "doubles the image; its time is repeated on the off and video rows for reference.\n\n");
  if (options.tables == "sift")
    return 0;
  print_host_frame_access(sift_native);

  std::printf(
      "| size | SIFT ms (upscale off, pinned) | SIFT kp | SURF ms (pinned) | "
      "SURF ms (device input) | SURF kp | SURF / SIFT time |\n|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < frames.size(); ++i) {
    CudaSurfExtractor surf{SurfParams{}};
    print_surf_row(sift_native[i], time_extractor(surf, frames[i], options, stream.get()));
  }
  std::printf(
      "\nSURF with CudaSurfExtractor's defaults (hessian_threshold 100, 4 octaves, 64 float "
      "values); the ratio compares the pinned-input times.\n\n");
  print_surf_variants(frames, options, stream.get());
  print_surf_at_sift_count(frames, sift_native, options, stream.get());
  return 0;
}

}  // namespace
}  // namespace gpusift::tools

int main(int argc, char** argv) {
  gpusift::tools::Options options;
  const std::string error = gpusift::tools::parse_options(argc, argv, &options);
  if (!error.empty()) {
    std::fprintf(
        stderr,
        "gpusift-bench-cuda: %s\nusage: gpusift-bench-cuda [--image IMAGE.pnm|NAME-{size}.pgm] "
        "[--frames N] [--warm-up N] [--opencv-runs N] [--sizes WxH,...] "
        "[--tables sift|all|sweep] [--busy-images A.pnm,B.pnm] [--budgets N,...]\n",
        error.c_str());
    return 2;
  }
  try {
    return gpusift::tools::run(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpusift-bench-cuda: %s\n", e.what());
    return 2;
  }
}
