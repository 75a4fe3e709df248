// gpusift-extract: SIFT or SURF features of one image into a CSV. See extract_usage() for the
// options.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <new>
#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgcodecs.hpp>
#include <stdexcept>
#include <string>

#include "cli_options.h"
#include "csv_writer.h"
#include "gpusift/error.h"
#include "gpusift/extractor.h"
#include "keypoint_drawing.h"
#include "median_timing.h"
#include "muted_stderr.h"

namespace gpusift::tools {

namespace {

constexpr int kFailureStatus = 2;

std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r')
      c = ' ';
  }
  while (!text.empty() && text.back() == ' ')
    text.pop_back();
  return text;
}

int report_failure(const std::string& message) {
  std::fprintf(stderr, "gpusift-extract: %s\n", one_line(message).c_str());
  return kFailureStatus;
}

void list_backends() {
  for (Backend backend : built_backends()) {
    if (backend != Backend::kCuda) {
      std::printf("%s\n", backend_name(backend));
      continue;
    }
    const int devices = cuda_device_count();
    if (devices == 0)
      std::printf("cuda (no device present)\n");
    else
      std::printf("cuda (%d device%s)\n", devices, devices == 1 ? "" : "s");
  }
}

cv::Mat read_gray(const std::string& path) {
  if (!std::ifstream(path))
    throw std::runtime_error("cannot open image " + path);
  cv::Mat gray;
  {
    const MutedStderr muted;
    gray = cv::imread(path, cv::IMREAD_GRAYSCALE);
  }
  if (gray.empty())
    throw std::runtime_error("cannot decode " + path + " as an image");
  return gray;
}

// Fails before a possibly long extraction rather than after it; the writers check again.
void check_output_path(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string folder =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  if (access(folder.c_str(), W_OK | X_OK) != 0)
    throw std::runtime_error("cannot write " + path + ": folder " + folder +
                             " is missing or not writable");
}

void check_drawing_path(const std::string& path) {
  check_output_path(path);
  if (!cv::haveImageWriter(path))
    throw std::runtime_error("cannot write " + path + ": no image encoder for its extension");
}

int max_keypoints(const FeatureConfig& config) {
  return config.method == Method::kSurf ? config.surf.max_keypoints : config.sift.max_keypoints;
}

void warn_if_overflowed(const Features& features, int max_keypoints) {
  if (!features.overflowed)
    return;
  std::fprintf(stderr,
               "gpusift-extract: warning: %d keypoints detected, kept the strongest %zu "
               "(--max-keypoints %d)\n",
               features.detected_count, features.keypoints.size(), max_keypoints);
}

int extract(const ExtractOptions& options) {
  check_output_path(options.csv_path);
  if (!options.draw_path.empty())
    check_drawing_path(options.draw_path);
  const std::unique_ptr<Extractor> extractor =
      create_extractor(options.backend, options.config, options.cuda_device);
  const cv::Mat gray = read_gray(options.image_path);

  Features features;
  const auto extract_once = [&] {
    extractor->extract_gray8(gray.data, gray.step, gray.cols, gray.rows, &features);
  };
  double median_ms = 0;
  if (options.bench_runs > 0)
    median_ms = median_milliseconds(options.bench_runs, extract_once);
  else
    extract_once();

  write_features_csv(options.csv_path, features, options.config.method);
  if (!options.draw_path.empty())
    write_keypoint_drawing(options.draw_path, gray, features);
  warn_if_overflowed(features, max_keypoints(options.config));

  const char* backend = backend_name(extractor->backend());
  std::printf("%s: %zu keypoints (%s, %dx%d) -> %s\n", options.image_path.c_str(),
              features.keypoints.size(), backend, gray.cols, gray.rows, options.csv_path.c_str());
  if (options.bench_runs > 0)
    std::printf("median_ms=%.3f runs=%d backend=%s\n", median_ms, options.bench_runs, backend);
  return 0;
}

int run(int argc, const char* const* argv) {
  ExtractOptions options;
  const std::string error = parse_extract_options(argc, argv, &options);
  if (!error.empty())
    return report_failure(error);
  if (options.show_help) {
    std::fputs(extract_usage(), stdout);
    return 0;
  }
  if (options.list_backends) {
    list_backends();
    return 0;
  }
  try {
    return extract(options);
  } catch (const Error& e) {
    return report_failure(e.what());
  } catch (const cv::Exception& e) {
    return report_failure("OpenCV: " + e.err);
  } catch (const std::bad_alloc&) {
    return report_failure("out of memory");
  } catch (const std::exception& e) {
    return report_failure(e.what());
  }
}

}  // namespace

}  // namespace gpusift::tools

int main(int argc, char** argv) {
  // We report every failure ourselves, in one line; OpenCV's own warnings would add more.
  cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
  return gpusift::tools::run(argc, argv);
}
