// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-extract: SIFT or SURF features of one image into a CSV or a features file, or of every
// frame of a video into a features file. See extract_usage() for the options.
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
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
#include "gpusift/features_file.h"
#include "gpusift/features_file_writer.h"
#include "keypoint_drawing.h"
#include "median_timing.h"
#include "muted_stderr.h"
#include "video_progress.h"
#include "video_reader.h"

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

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO (named pipe)";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "another kind of file";
}

// Refuses anything but a regular file (symlinks followed) before opening it: opening a FIFO
// blocks until a writer comes, and a directory or a device is no image or video.
void check_input_path(const std::string& path) {
  struct stat status;
  if (stat(path.c_str(), &status) != 0)
    throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  if (!S_ISREG(status.st_mode))
    throw std::runtime_error("cannot read " + path + ": it is " + file_kind(status.st_mode) +
                             ", not a regular file");
}

// Empty when OpenCV reads the file, but not as an image.
cv::Mat read_gray_image(const std::string& path) {
  if (!std::ifstream(path))
    throw std::runtime_error("cannot open " + path);
  struct stat status;
  if (stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode) && status.st_size == 0)
    throw std::runtime_error(path + " is empty");
  const MutedStderr muted;
  return cv::imread(path, cv::IMREAD_GRAYSCALE);
}

bool writes_features_file(const std::string& output_path) {
  return output_kind(output_path) == OutputKind::kFeaturesFile;
}

// The summary line's stream: stderr when the CSV itself goes to stdout.
std::FILE* summary_stream(const ExtractOptions& options) {
  return output_kind(options.output_path) == OutputKind::kStdoutCsv ? stderr : stdout;
}

// Fails before a possibly long extraction rather than after it; the writers check again.
void check_output_path(const std::string& path) {
  if (output_kind(path) == OutputKind::kStdoutCsv)
    return;
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

void write_image_features(const ExtractOptions& options, const cv::Mat& gray,
                          const Features& features) {
  if (!writes_features_file(options.output_path)) {
    write_features_csv(options.output_path, features, options.config.method);
    return;
  }
  FeaturesFileWriter writer(options.output_path);
  writer.write_frame(features, options.config.method, gray.cols, gray.rows, kFeaturesNoPts);
  writer.close();
}

int extract_image(const ExtractOptions& options, Extractor& extractor, const cv::Mat& gray) {
  Features features;
  const auto extract_once = [&] {
    extractor.extract_gray8(gray.data, gray.step, gray.cols, gray.rows, &features);
  };
  double median_ms = 0;
  if (options.bench_runs > 0)
    median_ms = median_milliseconds(options.bench_runs, extract_once);
  else
    extract_once();

  write_image_features(options, gray, features);
  if (!options.draw_path.empty())
    write_keypoint_drawing(options.draw_path, gray, features);
  warn_if_overflowed(features, max_keypoints(options.config));

  const char* backend = backend_name(extractor.backend());
  std::fprintf(summary_stream(options), "%s: %zu keypoints (%s, %dx%d) -> %s\n",
               options.input_path.c_str(), features.keypoints.size(), backend, gray.cols, gray.rows,
               options.output_path.c_str());
  if (options.bench_runs > 0)
    std::fprintf(summary_stream(options), "median_ms=%.3f runs=%d backend=%s\n", median_ms,
                 options.bench_runs, backend);
  return 0;
}

void check_video_options(const ExtractOptions& options) {
  const std::string video = options.input_path + " is a video";
  if (!writes_features_file(options.output_path))
    throw std::runtime_error(video + ": a CSV holds one image's features; write a features file " +
                             "(-o OUT.gpsf)");
  if (!options.draw_path.empty())
    throw std::runtime_error(video + ": --draw takes an image");
  if (options.bench_runs > 0)
    throw std::runtime_error(video + ": --bench takes an image");
}

int extract_video(const ExtractOptions& options, Extractor& extractor, GrayVideoReader& video) {
  FeaturesFileWriter writer(options.output_path);
  Features features;
  cv::Mat gray;
  uint64_t pts = kFeaturesNoPts;
  size_t frames = 0, keypoints = 0, overflowed_frames = 0;
  cv::Size first_size;
  VideoProgress progress(video.stated_frame_count());
  while (video.read(&gray, &pts)) {
    extractor.extract_gray8(gray.data, gray.step, gray.cols, gray.rows, &features);
    writer.write_frame(features, options.config.method, gray.cols, gray.rows, pts);
    if (frames == 0)
      first_size = gray.size();
    ++frames;
    keypoints += features.keypoints.size();
    overflowed_frames += features.overflowed ? 1 : 0;
    progress.frame_done(frames);
  }
  progress.finish(frames);
  writer.sync();
  writer.close();
  if (overflowed_frames > 0)
    std::fprintf(stderr,
                 "gpusift-extract: warning: %zu of %zu frames had more keypoints than "
                 "--max-keypoints %d and kept the strongest\n",
                 overflowed_frames, frames, max_keypoints(options.config));
  std::printf("%s: %zu frames, %zu keypoints (%s, %dx%d) -> %s\n", options.input_path.c_str(),
              frames, keypoints, backend_name(extractor.backend()), first_size.width,
              first_size.height, options.output_path.c_str());
  return 0;
}

int extract(const ExtractOptions& options) {
  check_input_path(options.input_path);
  check_output_path(options.output_path);
  if (!options.draw_path.empty())
    check_drawing_path(options.draw_path);
  const std::unique_ptr<Extractor> extractor =
      create_extractor(options.backend, options.config, options.cuda_device);
  const cv::Mat gray = read_gray_image(options.input_path);
  if (!gray.empty())
    return extract_image(options, *extractor, gray);

  const std::unique_ptr<GrayVideoReader> video = GrayVideoReader::open(options.input_path);
  if (!video)
    throw std::runtime_error("cannot decode " + options.input_path + " as an image or a video");
  check_video_options(options);
  return extract_video(options, *extractor, *video);
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
  if (options.show_version) {
    std::printf("gpusift-extract %s\n", GPUSIFT_VERSION);
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
