// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-soak: many frames through gpusiftfilter in one process; the host's resident memory and
// the GPU's used memory must stay flat after a warm-up. See soak_usage().
#include <gst/gst.h>

#include <cstdio>
#include <string>

#include "memory_series.h"
#include "soak_options.h"
#include "soak_pipeline.h"

namespace gpusift::soak {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// Prints the verdict of one series; false when it grew past its tolerance.
bool report_growth(const char* what, const Growth& growth, double tolerance_mib) {
  if (!growth.measured) {
    std::printf("%s: not measured\n", what);
    return true;
  }
  const bool flat = growth.bytes <= tolerance_mib * kMiB;
  std::printf(
      "%s: %+.2f MiB after the warm-up (tolerance %.1f), slope %+.1f KiB per 1000 frames: %s\n",
      what, growth.bytes / kMiB, tolerance_mib, growth.bytes_per_1000 / 1024.0,
      flat ? "flat" : "GROWS");
  return flat;
}

void write_csv(const std::string& path, const std::vector<MemorySample>& samples) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) {
    std::fprintf(stderr, "gpusift-soak: cannot write %s\n", path.c_str());
    return;
  }
  std::fprintf(file, "frame,seconds,host_rss_bytes,device_used_bytes,mean_keypoints\n");
  for (const MemorySample& s : samples)
    std::fprintf(file, "%ld,%.3f,%lld,%lld,%.1f\n", s.frame, s.seconds,
                 static_cast<long long>(s.host_rss), static_cast<long long>(s.device_used),
                 s.mean_keypoints);
  std::fclose(file);
}

int run(int argc, char** argv) {
  SoakOptions options;
  const std::string usage_error = parse_soak_options(argc, argv, &options);
  if (!usage_error.empty()) {
    std::fprintf(stderr, "gpusift-soak: %s\n", usage_error.c_str());
    return 2;
  }
  if (options.show_help) {
    std::fputs(soak_usage(), stdout);
    return 0;
  }
  gst_init(&argc, &argv);
  std::printf("gpusift-soak: %ld frames of %dx%d, %s on %s, float descriptors\n", options.frames,
              options.width, options.height, options.method.c_str(), options.backend.c_str());
  std::fflush(stdout);
  const SoakResult result = run_soak(options);
  std::fputs(series_table(result.samples).c_str(), stdout);
  if (!options.csv_path.empty())
    write_csv(options.csv_path, result.samples);

  bool passed = true;
  if (!result.error.empty()) {
    std::printf("error: %s\n", result.error.c_str());
    passed = false;
  }
  if (result.frames != options.frames) {
    std::printf("frames: %ld of %ld reached the sink\n", result.frames, options.frames);
    passed = false;
  }
  if (result.frames_without_features > 0) {
    std::printf("frames without keypoints and descriptors: %ld\n", result.frames_without_features);
    passed = false;
  }
  const double seconds = result.samples.empty() ? 0 : result.samples.back().seconds;
  if (seconds > 0)
    std::printf("%.1f frames/s\n", result.frames / seconds);
  passed &= report_growth("host RSS", host_growth(result.samples, options.warmup_frames),
                          options.host_tolerance_mib);
  passed &= report_growth("device memory", device_growth(result.samples, options.warmup_frames),
                          options.device_tolerance_mib);
  std::printf("%s\n", passed ? "PASS" : "FAIL");
  gst_deinit();
  return passed ? 0 : 1;
}

}  // namespace

}  // namespace gpusift::soak

int main(int argc, char** argv) {
  return gpusift::soak::run(argc, argv);
}
