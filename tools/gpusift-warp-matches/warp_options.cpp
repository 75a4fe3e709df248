#include "warp_options.h"

#include "gpusift/error.h"
#include "parse_number.h"

namespace gpusift::tools {

namespace {

bool parse_positive(const std::string& text, double* value) {
  return parse_finite_double(text, value) && *value > 0;
}

// Applies one option with its value; false when the value is bad.
bool apply(const std::string& name, const std::string& value, WarpOptions* o, bool* sigma_chosen) {
  SiftParams& sift = o->sift;
  if (name == "--rows")
    return parse_int(value, 8, 16384, &o->rows);
  if (name == "--rotation")
    return parse_finite_double(value, &o->rotation_degrees);
  if (name == "--scale")
    return parse_positive(value, &o->scale);
  if (name == "--backend")
    return parse_backend(value, &o->backend);
  if (name == "--upscale") {
    sift.upscale = value == "1";
    return value == "0" || value == "1";
  }
  if (name == "--sigma") {
    *sigma_chosen = true;
    return parse_finite_float(value, &sift.sigma);
  }
  if (name == "--contrast-threshold")
    return parse_finite_float(value, &sift.contrast_threshold);
  if (name == "--edge-threshold")
    return parse_finite_float(value, &sift.edge_threshold);
  if (name == "--n-octave-layers")
    return parse_int(value, 1, kMaxOctaveLayers, &sift.n_octave_layers);
  if (name == "--write-pairs")
    return !(o->pairs_dir = value).empty();
  if (name == "--features")
    return !(o->features_dir = value).empty();
  return false;
}

bool takes_value(const std::string& name) {
  for (const char* known : {"--rows", "--rotation", "--scale", "--backend", "--upscale", "--sigma",
                            "--contrast-threshold", "--edge-threshold", "--n-octave-layers",
                            "--write-pairs", "--features"}) {
    if (name == known)
      return true;
  }
  return false;
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
         "  SIFT, default gpusiftfilter's video mode (--upscale 0 --sigma 0.8):\n"
         "  --upscale 0|1, --sigma F (default 1.6 with --upscale 1), --contrast-threshold F,\n"
         "  --edge-threshold F, --n-octave-layers N\n"
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
  bool sigma_chosen = false;
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
    if (!takes_value(arg))
      return "unknown option '" + arg + "' (see --help)";
    if (i + 1 >= argc)
      return "missing value for " + arg;
    const std::string value = argv[++i];
    if (!apply(arg, value, options, &sigma_chosen))
      return "bad value '" + value + "' for " + arg;
  }
  if (options->show_help)
    return "";
  if (options->images.empty())
    return "no IMAGE given (see --help)";
  if (!sigma_chosen)
    options->sift.sigma = default_sigma(options->sift.upscale);
  try {
    validate(options->sift);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace gpusift::tools
