// SPDX-License-Identifier: LGPL-2.1-or-later
// Command line of gpusift-warp-matches.
#pragma once

#include <string>
#include <vector>

#include "gpusift/extractor.h"

namespace gpusift::tools {

struct WarpOptions {
  bool show_help = false;
  std::vector<std::string> images;
  int rows = 0;  // 0: each image at its own size
  double rotation_degrees = 30;
  double scale = 0.8;
  float lowe_ratio = 0.8f;
  double tolerance_px = 3;
  Backend backend = Backend::kAuto;
  SiftParams sift = video_sift_params();  // gpusiftfilter's defaults
  ChosenByHand chosen;                    // the others follow sift.upscale, as in gpusiftfilter
  std::string pairs_dir;                  // non-empty: write each pair there as PGM
  std::string features_dir;  // non-empty: read another extractor's CSVs instead of extracting
};

const char* warp_usage();

// Fills `options` from argv; returns an empty string on success, else a one-line message.
std::string parse_warp_options(int argc, const char* const* argv, WarpOptions* options);

}  // namespace gpusift::tools
