// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cli_options.h"

#include <cctype>
#include <climits>
#include <string>

#include "gpusift/error.h"
#include "gpusift/surf_params.h"
#include "parse_number.h"

namespace gpusift::tools {

namespace {

// Options of one method are refused with the other, whatever their order on the line.
enum class Scope { kAnyMethod, kSiftOnly, kSurfOnly };

struct ValueOption {
  const char* name;
  const char* expected;  // completes "expected ..." in the error message
  Scope scope;
  bool (*apply)(const std::string& value, ExtractOptions* options);
};

bool parse_flag(const std::string& value, bool* flag) {
  if (value != "0" && value != "1")
    return false;
  *flag = value == "1";
  return true;
}

bool parse_path(const std::string& value, std::string* path) {
  *path = value;
  return !value.empty();
}

const ValueOption kValueOptions[] = {
    {"--method", "sift or surf", Scope::kAnyMethod,
     [](const std::string& v, ExtractOptions* o) { return parse_method(v, &o->config.method); }},
    {"--backend", "cpu, cuda or auto", Scope::kAnyMethod,
     [](const std::string& v, ExtractOptions* o) { return parse_backend(v, &o->backend); }},
    {"--nfeatures", "an integer >= 0", Scope::kAnyMethod,
     [](const std::string& v, ExtractOptions* o) {
       return parse_int(v, 0, INT_MAX, &o->config.sift.nfeatures) &&
              parse_int(v, 0, INT_MAX, &o->config.surf.nfeatures);
     }},
    {"--distribution", "global or grid", Scope::kAnyMethod,
     [](const std::string& v, ExtractOptions* o) {
       return parse_keypoint_distribution(v, &o->config.sift.distribution) &&
              parse_keypoint_distribution(v, &o->config.surf.distribution);
     }},
    {"--descriptor", "float, uint8, rootsift or none", Scope::kAnyMethod,
     [](const std::string& v, ExtractOptions* o) {
       return parse_descriptor_format(v, &o->config.sift.descriptor) &&
              parse_descriptor_format(v, &o->config.surf.descriptor);
     }},
    {"--n-octave-layers", "an integer in [1, 8]", Scope::kAnyMethod,
     [](const std::string& v, ExtractOptions* o) {
       return parse_int(v, 1, kMaxOctaveLayers, &o->config.sift.n_octave_layers) &&
              parse_int(v, 1, kSurfMaxOctaveLayers, &o->config.surf.n_octave_layers);
     }},
    {"--max-keypoints", "an integer in [1, 4194304]", Scope::kAnyMethod,
     [](const std::string& v, ExtractOptions* o) {
       return parse_int(v, 1, 1 << 22, &o->config.sift.max_keypoints) &&
              parse_int(v, 1, 1 << 22, &o->config.surf.max_keypoints);
     }},
    {"--upscale", "0 or 1", Scope::kSiftOnly,
     [](const std::string& v, ExtractOptions* o) {
       return parse_flag(v, &o->config.sift.upscale);
     }},
    {"--contrast-threshold", "a number >= 0", Scope::kSiftOnly,
     [](const std::string& v, ExtractOptions* o) {
       float& threshold = o->config.sift.contrast_threshold;
       return parse_finite_float(v, &threshold) && threshold >= 0.f;
     }},
    {"--edge-threshold", "a number > 0", Scope::kSiftOnly,
     [](const std::string& v, ExtractOptions* o) {
       float& threshold = o->config.sift.edge_threshold;
       return parse_finite_float(v, &threshold) && threshold > 0.f;
     }},
    {"--sigma", "a number in [0.5, 4]", Scope::kSiftOnly,
     [](const std::string& v, ExtractOptions* o) {
       float& sigma = o->config.sift.sigma;
       o->chosen.sigma = true;
       return parse_finite_float(v, &sigma) && sigma >= 0.5f && sigma <= 4.f;
     }},
    {"--max-octaves", "an integer >= 1", Scope::kSiftOnly,
     [](const std::string& v, ExtractOptions* o) {
       o->chosen.max_octaves = true;
       return parse_int(v, 1, INT_MAX, &o->config.sift.max_octaves);
     }},
    {"--hessian-threshold", "a number >= 0", Scope::kSurfOnly,
     [](const std::string& v, ExtractOptions* o) {
       double& threshold = o->config.surf.hessian_threshold;
       return parse_finite_double(v, &threshold) && threshold >= 0;
     }},
    {"--n-octaves", "an integer in [1, 8]", Scope::kSurfOnly,
     [](const std::string& v, ExtractOptions* o) {
       return parse_int(v, 1, kSurfMaxOctaves, &o->config.surf.n_octaves);
     }},
    {"--extended", "0 or 1", Scope::kSurfOnly,
     [](const std::string& v, ExtractOptions* o) {
       return parse_flag(v, &o->config.surf.extended);
     }},
    {"--upright", "0 or 1", Scope::kSurfOnly,
     [](const std::string& v, ExtractOptions* o) {
       return parse_flag(v, &o->config.surf.upright);
     }},
    {"--cuda-device", "an integer >= 0", Scope::kAnyMethod,
     [](const std::string& v, ExtractOptions* o) {
       return parse_int(v, 0, INT_MAX, &o->cuda_device);
     }},
    {"--bench", "an integer in [1, 100000]", Scope::kAnyMethod,
     [](const std::string& v, ExtractOptions* o) {
       return parse_int(v, 1, 100000, &o->bench_runs);
     }},
    {"--draw", "an output image path", Scope::kAnyMethod,
     [](const std::string& v, ExtractOptions* o) { return parse_path(v, &o->draw_path); }},
    {"-o", "an output path, .csv or .gpsf, or - for CSV on stdout", Scope::kAnyMethod,
     [](const std::string& v, ExtractOptions* o) { return parse_path(v, &o->output_path); }},
    {"--output", "an output path, .csv or .gpsf, or - for CSV on stdout", Scope::kAnyMethod,
     [](const std::string& v, ExtractOptions* o) { return parse_path(v, &o->output_path); }},
};

const ValueOption* find_value_option(const std::string& name) {
  for (const ValueOption& option : kValueOptions) {
    if (name == option.name)
      return &option;
  }
  return nullptr;
}

bool is_option(const std::string& arg) {
  return arg.size() > 1 && arg[0] == '-';
}

// "-3" and "-inf" are (bad) values for --nfeatures and --sigma, while "-o" or "--help" after
// --draw means the value is missing.
bool is_option_name(const std::string& arg) {
  return arg.rfind("--", 0) == 0 || arg == "-o" || arg == "-h";
}

}  // namespace

namespace {

// Whether text ends with tail (lower case) in any case.
bool ends_with_lowercase(const std::string& text, const std::string& tail) {
  if (text.size() < tail.size())
    return false;
  for (size_t i = 0; i < tail.size(); ++i) {
    const char c = text[text.size() - tail.size() + i];
    if (std::tolower(static_cast<unsigned char>(c)) != tail[i])
      return false;
  }
  return true;
}

}  // namespace

OutputKind output_kind(const std::string& path) {
  if (path == "-")
    return OutputKind::kStdoutCsv;
  if (ends_with_lowercase(path, ".gpsf"))
    return OutputKind::kFeaturesFile;
  if (ends_with_lowercase(path, ".csv"))
    return OutputKind::kCsv;
  return OutputKind::kUnknown;
}

const char* extract_usage() {
  return "usage: gpusift-extract [options] IMAGE -o OUT.csv|OUT.gpsf|-\n"
         "       gpusift-extract [options] VIDEO -o OUT.gpsf\n"
         "       gpusift-extract --list-backends | --version | --help\n"
         "Detects SIFT or SURF features in IMAGE (read as grayscale), or in every frame of VIDEO\n"
         "(any input OpenCV cannot read as an image is opened as a video).\n"
         "OUT.csv (one image only): one row per keypoint, x,y,size,angle,response,octave,\n"
         "d0,...,d127 for SIFT, x,y,size,angle,response,octave,class_id,d0,...,d63 (d127\n"
         "extended) for SURF.\n"
         "OUT.gpsf: the gpusift features file, one record per image or video frame with its\n"
         "timestamp, as keypointfilesink writes it (gpusift-features, from the Python package\n"
         "gpusift, reads it).\n"
         "-: the CSV on stdout; the summary line then goes to stderr.\n"
         "options:\n"
         "  -o, --output PATH         .gpsf: features file; .csv: CSV; -: CSV on stdout\n"
         "                            (required; any other extension is refused)\n"
         "  --method sift|surf        feature type (default sift)\n"
         "  --backend cpu|cuda|auto   default auto: cuda when a device is present, else cpu\n"
         "  --nfeatures N             keep the N strongest keypoints (default 0: all)\n"
         "  --distribution global|grid   nfeatures over the whole image (default global) or\n"
         "                            spread over a grid of about N/4 cells\n"
         "  --descriptor float|uint8|rootsift|none   default float; SURF: float or none\n"
         "  --n-octave-layers N       default 3\n"
         "  --max-keypoints N         keypoint capacity (default 65536)\n"
         "SIFT only:\n"
         "  --upscale 0|1             double the image first, as OpenCV does (default 1)\n"
         "  --contrast-threshold F    default 0.04\n"
         "  --edge-threshold F        default 10\n"
         "  --sigma F                 first-octave blur; default 1.6 with --upscale 1\n"
         "                            (OpenCV's), 0.8 with --upscale 0 (gpusiftfilter's\n"
         "                            video mode)\n"
         "  --max-octaves N           at most N octaves; default OpenCV's count with --upscale 1,\n"
         "                            5 with --upscale 0 (the video mode)\n"
         "SURF only (OpenCV's cv::xfeatures2d::SURF conventions):\n"
         "  --hessian-threshold F     default 100\n"
         "  --n-octaves N             default 4, at most 8\n"
         "  --extended 0|1            128-value descriptors instead of 64 (default 0)\n"
         "  --upright 0|1             no orientation, every angle 270 (default 0)\n"
         "other:\n"
         "  --cuda-device N           CUDA device index\n"
         "  --bench N                 time N extractions after 2 warm-ups, print the median\n"
         "                            (images only)\n"
         "  --draw OUT.png            also write the image with the keypoints drawn (images only)\n"
         "  --list-backends           print the backends built in, and whether a GPU is present\n"
         "  --version                 print the version\n"
         "  -h, --help                print this help\n"
         "A video on a terminal shows its progress on stderr.\n"
         "Errors print one line on stderr and exit with status 2.\n";
}

std::string parse_extract_options(int argc, const char* const* argv, ExtractOptions* options) {
  bool options_ended = false;
  const char* first_sift_only = nullptr;
  const char* first_surf_only = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (options_ended || !is_option(arg)) {
      if (!options->input_path.empty())
        return "more than one INPUT given: '" + options->input_path + "' and '" + arg + "'";
      options->input_path = arg;
      continue;
    }
    if (arg == "--") {
      options_ended = true;
    } else if (arg == "-h" || arg == "--help") {
      options->show_help = true;
    } else if (arg == "--list-backends") {
      options->list_backends = true;
    } else if (arg == "--version") {
      options->show_version = true;
    } else {
      const size_t equals = arg.find('=');
      const std::string name = arg.substr(0, equals);
      const ValueOption* option = find_value_option(name);
      if (option == nullptr)
        return "unknown option '" + name + "' (see --help)";
      std::string value;
      if (equals != std::string::npos) {
        value = arg.substr(equals + 1);
      } else if (i + 1 < argc && !is_option_name(argv[i + 1])) {
        value = argv[++i];
      } else {
        return "missing value for " + name + " (expected " + option->expected + ")";
      }
      if (!option->apply(value, options))
        return "bad value '" + value + "' for " + name + " (expected " + option->expected + ")";
      if (option->scope == Scope::kSiftOnly && first_sift_only == nullptr)
        first_sift_only = option->name;
      if (option->scope == Scope::kSurfOnly && first_surf_only == nullptr)
        first_surf_only = option->name;
    }
  }
  apply_upscale_defaults(&options->config.sift, options->chosen);
  if (options->show_help || options->list_backends || options->show_version)
    return "";
  const bool surf = options->config.method == Method::kSurf;
  const char* misplaced = surf ? first_sift_only : first_surf_only;
  if (misplaced != nullptr)
    return std::string(misplaced) + " is only for --method " + (surf ? "sift" : "surf");
  if (options->input_path.empty())
    return "missing INPUT argument, an image or a video (see --help)";
  if (options->output_path.empty())
    return "missing -o OUT.csv, -o OUT.gpsf or -o -";
  if (output_kind(options->output_path) == OutputKind::kUnknown)
    return "output '" + options->output_path +
           "' is neither .csv nor .gpsf (nor - for CSV on stdout)";
  try {
    if (surf)
      validate(options->config.surf);
    else
      validate(options->config.sift);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace gpusift::tools
