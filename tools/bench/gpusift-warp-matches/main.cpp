// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-warp-matches: how many correct matches SIFT finds between an image and its copy under a
// known rotation and scale, for our extractor or from another one's CSV files. The measure behind
// gpusiftfilter's video mode (README). See warp_usage() for the options.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "features_csv.h"
#include "gpusift/cpu_matcher.h"
#include "gpusift/extractor.h"
#include "muted_stderr.h"
#include "warp_options.h"
#include "warp_pair.h"

namespace gpusift::tools {

namespace {

constexpr int kFailureStatus = 2;

struct PairCount {
  size_t keypoints = 0;  // of both images
  size_t matches = 0;
  std::vector<double> errors;  // of the correct matches, px
};

double median_of(std::vector<double> values) {
  if (values.empty())
    return 0;
  const auto middle = values.begin() + values.size() / 2;
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

std::string pair_name(const std::string& path, int rows) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  name = name.substr(0, name.find_last_of('.'));
  return rows > 0 ? name + "_" + std::to_string(rows) : name;
}

cv::Mat read_gray(const std::string& path, int rows) {
  cv::Mat gray;
  {
    const MutedStderr muted;
    gray = cv::imread(path, cv::IMREAD_GRAYSCALE);
  }
  if (gray.empty())
    throw std::runtime_error("cannot read " + path + " as an image");
  if (rows > 0) {
    const int cols =
        static_cast<int>(std::lround(gray.cols * static_cast<double>(rows) / gray.rows));
    cv::resize(gray, gray, cv::Size(cols, rows), 0, 0, cv::INTER_LINEAR);
  }
  return gray;
}

PointsAndDescriptors extracted(Extractor& extractor, const cv::Mat& gray) {
  Features features;
  extractor.extract_gray8(gray.data, gray.step, gray.cols, gray.rows, &features);
  PointsAndDescriptors result;
  for (const Keypoint& k : features.keypoints)
    result.points.emplace_back(k.x, k.y);
  result.descriptors = std::move(features.float_descriptors);
  return result;
}

DescriptorSetView view_of(const PointsAndDescriptors& features) {
  return DescriptorSetView{features.descriptors.data(), static_cast<int>(features.points.size()),
                           kCsvDescriptorSize, DescriptorFormat::kFloat, MemoryKind::kHost};
}

void write_pgm(const std::string& path, const cv::Mat& gray) {
  if (!cv::imwrite(path, gray))
    throw std::runtime_error("cannot write " + path);
}

PairCount count_pair(const WarpOptions& options, Extractor* extractor, const std::string& name,
                     const WarpPair& pair) {
  PointsAndDescriptors original, warped;
  if (extractor == nullptr) {
    original = read_features_csv(options.features_dir + "/" + name + ".pgm.csv");
    warped = read_features_csv(options.features_dir + "/" + name + "_w.pgm.csv");
  } else {
    original = extracted(*extractor, pair.original);
    warped = extracted(*extractor, pair.warped);
  }
  PairCount count;
  count.keypoints = original.points.size() + warped.points.size();
  if (original.points.empty() || warped.points.size() < 2)
    return count;
  std::vector<Match> matches;
  MatchParams params;
  params.ratio = options.lowe_ratio;
  CpuMatcher().match(view_of(original), view_of(warped), params, &matches);
  count.matches = matches.size();
  count.errors = correct_match_errors(original.points, warped.points, matches, pair.transform,
                                      options.tolerance_px);
  return count;
}

void print_row(const std::string& name, const std::string& size, const PairCount& c) {
  const size_t correct = c.errors.size();
  std::printf("| %s | %s | %zu | %zu | %zu | %.1f %% | %.3f |\n", name.c_str(), size.c_str(),
              c.keypoints, c.matches, correct, c.matches ? 100.0 * correct / c.matches : 0.0,
              median_of(c.errors));
  std::fflush(stdout);
}

int run(const WarpOptions& options) {
  if (!options.pairs_dir.empty() && access(options.pairs_dir.c_str(), W_OK | X_OK) != 0)
    throw std::runtime_error("cannot write pairs to " + options.pairs_dir +
                             ": missing or not writable");
  std::unique_ptr<Extractor> extractor;
  if (options.features_dir.empty())
    extractor = create_extractor(options.backend, options.sift);
  const SiftParams& p = options.sift;
  std::printf("# %s, upscale %d, sigma %.2f, contrast %.3f, layers %d; rotation %.1f, scale %.2f\n",
              extractor ? backend_name(extractor->backend()) : options.features_dir.c_str(),
              p.upscale ? 1 : 0, p.sigma, p.contrast_threshold, p.n_octave_layers,
              options.rotation_degrees, options.scale);
  std::printf(
      "| image | size | keypoints | matches | correct | precision | median error px |\n"
      "|---|---|---|---|---|---|---|\n");
  PairCount total;
  for (const std::string& path : options.images) {
    const std::string name = pair_name(path, options.rows);
    const WarpPair pair =
        make_warp_pair(read_gray(path, options.rows), options.rotation_degrees, options.scale);
    if (!options.pairs_dir.empty()) {
      write_pgm(options.pairs_dir + "/" + name + ".pgm", pair.original);
      write_pgm(options.pairs_dir + "/" + name + "_w.pgm", pair.warped);
    }
    const PairCount count = count_pair(options, extractor.get(), name, pair);
    print_row(name, std::to_string(pair.original.cols) + "x" + std::to_string(pair.original.rows),
              count);
    total.keypoints += count.keypoints;
    total.matches += count.matches;
    total.errors.insert(total.errors.end(), count.errors.begin(), count.errors.end());
  }
  print_row("total", "", total);
  return 0;
}

}  // namespace
}  // namespace gpusift::tools

int main(int argc, char** argv) {
  using namespace gpusift::tools;
  cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_ERROR);
  WarpOptions options;
  const std::string error = parse_warp_options(argc, argv, &options);
  if (options.show_help && error.empty()) {
    std::fputs(warp_usage(), stdout);
    return 0;
  }
  if (!error.empty()) {
    std::fprintf(stderr, "gpusift-warp-matches: %s\n", error.c_str());
    return kFailureStatus;
  }
  try {
    return run(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpusift-warp-matches: %s\n", e.what());
    return kFailureStatus;
  }
}
