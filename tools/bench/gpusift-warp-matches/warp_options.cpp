// SPDX-License-Identifier: LGPL-2.1-or-later
#include "warp_options.h"

#include <climits>

#include "gpusift/error.h"
#include "parse_number.h"

namespace gpusift::tools {

namespace {

bool parse_positive(const std::string& text, double* value) {
  return parse_finite_double(text, value) && *value > 0;
}

struct ValueOption {
  const char* name;
  bool (*apply)(const std::string& value, WarpOptions* options);  // false: a bad value
};

const ValueOption kValueOptions[] = {
    {"--rows",
     [](const std::string& v, WarpOptions* o) { return parse_int(v, 8, 16384, &o->rows); }},
    {"--rotation", [](const std::string& v,
                      WarpOptions* o) { return parse_finite_double(v, &o->rotation_degrees); }},
    {"--scale", [](const std::string& v, WarpOptions* o) { return parse_positive(v, &o->scale); }},
    {"--backend",
     [](const std::string& v, WarpOptions* o) { return parse_backend(v, &o->backend); }},
    {"--upscale",
     [](const std::string& v, WarpOptions* o) {
       o->sift.upscale = v == "1";
       return v == "0" || v == "1";
     }},
    {"--sigma",
     [](const std::string& v, WarpOptions* o) {
       o->chosen.sigma = true;
       return parse_finite_float(v, &o->sift.sigma);
     }},
    {"--contrast-threshold",
     [](const std::string& v, WarpOptions* o) {
       return parse_finite_float(v, &o->sift.contrast_threshold);
     }},
    {"--edge-threshold",
     [](const std::string& v, WarpOptions* o) {
       return parse_finite_float(v, &o->sift.edge_threshold);
     }},
    {"--max-octaves",
     [](const std::string& v, WarpOptions* o) {
       o->chosen.max_octaves = true;
       return parse_int(v, 1, INT_MAX, &o->sift.max_octaves);
     }},
    {"--n-octave-layers",
     [](const std::string& v, WarpOptions* o) {
       return parse_int(v, 1, kMaxOctaveLayers, &o->sift.n_octave_layers);
     }},
    {"--write-pairs",
     [](const std::string& v, WarpOptions* o) { return !(o->pairs_dir = v).empty(); }},
    {"--features",
     [](const std::string& v, WarpOptions* o) { return !(o->features_dir = v).empty(); }},
};

const ValueOption* find_value_option(const std::string& name) {
  for (const ValueOption& option : kValueOptions) {
    if (name == option.name)
      return &option;
  }
  return nullptr;
}

}  // namespace

const char* warp_usage() {
  return "usage: gpusift-warp-matches [options] IMAGE...\n"
         "Makes a copy of each IMAGE (read as grayscale) rotated and scaled about its centre,\n"
         "extracts SIFT from both, matches them (exhaustive, Lowe ratio 0.8) and counts the\n"
         "matches within 3 px of where the transform puts them, and their median distance to\n"
         "it. Prints one row per image and the totals.\n"
         "options:\n"
         "  --rows N                  resize each image to N rows first (aspect kept)\n"
         "  --rotation DEGREES        default 30\n"
         "  --scale S                 default 0.8\n"
         "  --backend cpu|cuda|auto   default auto\n"
         "  SIFT, default gpusiftfilter's video mode (--upscale 0 --sigma 0.8 --max-octaves 5):\n"
         "  --upscale 0|1, --sigma F (default 1.6 with --upscale 1), --max-octaves N (default\n"
         "  OpenCV's count with --upscale 1), --contrast-threshold F, --edge-threshold F,\n"
         "  --n-octave-layers N\n"
         "  --write-pairs DIR         also write DIR/NAME.pgm and DIR/NAME_w.pgm (NAME: the\n"
         "                            image's file name without extension, then _ROWS with "
         "--rows)\n"
         "  --features DIR            count another extractor's matches instead: read\n"
         "                            DIR/NAME.pgm.csv and DIR/NAME_w.pgm.csv (x, y first, the\n"
         "                            128 descriptor values last, as gpusift-extract writes)\n"
         "  -h, --help                print this help\n"
         "Errors print one line on stderr and exit with status 2.\n";
}

std::string parse_warp_options(int argc, const char* const* argv, WarpOptions* options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      options->show_help = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0) {
      options->images.push_back(arg);
      continue;
    }
    const ValueOption* option = find_value_option(arg);
    if (option == nullptr)
      return "unknown option '" + arg + "' (see --help)";
    if (i + 1 >= argc)
      return "missing value for " + arg;
    const std::string value = argv[++i];
    if (!option->apply(value, options))
      return "bad value '" + value + "' for " + arg;
  }
  if (options->show_help)
    return "";
  if (options->images.empty())
    return "no IMAGE given (see --help)";
  apply_upscale_defaults(&options->sift, options->chosen);
  try {
    validate(options->sift);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace gpusift::tools
