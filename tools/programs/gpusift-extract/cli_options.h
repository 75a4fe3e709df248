// SPDX-License-Identifier: LGPL-2.1-or-later
// Command line of gpusift-extract, parsed into one struct.
#pragma once

#include <string>

#include "gpusift/extractor.h"
#include "gpusift/method.h"
#include "gpusift/sift_params.h"

namespace gpusift::tools {

struct ExtractOptions {
  bool show_help = false;
  bool show_version = false;
  bool list_backends = false;
  std::string input_path;   // an image, or a video (read when OpenCV cannot read an image)
  std::string output_path;  // .gpsf: a features file; .csv: CSV; "-": CSV on stdout
  std::string draw_path;    // empty: no drawing
  Backend backend = Backend::kAuto;
  FeatureConfig config;  // the library defaults; config.method picks sift or surf
  ChosenByHand chosen;   // the others follow config.sift.upscale, as in gpusiftfilter
  int cuda_device = -1;  // -1: the factory's choice
  int bench_runs = 0;    // 0: extract once, no timing
};

const char* extract_usage();

// What the output path asks for: CSV on stdout ("-"), a CSV file or a features file (by the
// extension, in any case); kUnknown for any other name.
enum class OutputKind { kStdoutCsv, kCsv, kFeaturesFile, kUnknown };
OutputKind output_kind(const std::string& path);

// Fills `options` from argv; returns an empty string on success, else a one-line message.
std::string parse_extract_options(int argc, const char* const* argv, ExtractOptions* options);

}  // namespace gpusift::tools
