#include "cli_options.h"

#include <cctype>
#include <climits>
#include <string>

#include "gpusift/error.h"
#include "parse_number.h"

namespace gpusift::tools {

namespace {

struct ValueOption {
  const char* name;
  const char* expected;  // completes "expected ..." in the error message
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
    {"--method", "sift", [](const std::string& v, ExtractOptions*) { return v == "sift"; }},
    {"--backend", "cpu, cuda or auto",
     [](const std::string& v, ExtractOptions* o) { return parse_backend(v, &o->backend); }},
    {"--upscale", "0 or 1",
     [](const std::string& v, ExtractOptions* o) { return parse_flag(v, &o->params.upscale); }},
    {"--nfeatures", "an integer >= 0",
     [](const std::string& v, ExtractOptions* o) {
       return parse_int(v, 0, INT_MAX, &o->params.nfeatures);
     }},
    {"--descriptor", "float, uint8, rootsift or none",
     [](const std::string& v, ExtractOptions* o) {
       return parse_descriptor_format(v, &o->params.descriptor);
     }},
    {"--n-octave-layers", "an integer in [1, 8]",
     [](const std::string& v, ExtractOptions* o) {
       return parse_int(v, 1, kMaxOctaveLayers, &o->params.n_octave_layers);
     }},
    {"--contrast-threshold", "a number >= 0",
     [](const std::string& v, ExtractOptions* o) {
       return parse_finite_float(v, &o->params.contrast_threshold) &&
              o->params.contrast_threshold >= 0.f;
     }},
    {"--edge-threshold", "a number > 0",
     [](const std::string& v, ExtractOptions* o) {
       return parse_finite_float(v, &o->params.edge_threshold) && o->params.edge_threshold > 0.f;
     }},
    {"--sigma", "a number in [0.5, 4]",
     [](const std::string& v, ExtractOptions* o) {
       return parse_finite_float(v, &o->params.sigma) && o->params.sigma >= 0.5f &&
              o->params.sigma <= 4.f;
     }},
    {"--max-keypoints", "an integer in [1, 4194304]",
     [](const std::string& v, ExtractOptions* o) {
       return parse_int(v, 1, 1 << 22, &o->params.max_keypoints);
     }},
    {"--cuda-device", "an integer >= 0",
     [](const std::string& v, ExtractOptions* o) {
       return parse_int(v, 0, INT_MAX, &o->cuda_device);
     }},
    {"--bench", "an integer in [1, 100000]",
     [](const std::string& v, ExtractOptions* o) {
       return parse_int(v, 1, 100000, &o->bench_runs);
     }},
    {"--draw", "an output image path",
     [](const std::string& v, ExtractOptions* o) { return parse_path(v, &o->draw_path); }},
    {"-o", "an output CSV path",
     [](const std::string& v, ExtractOptions* o) { return parse_path(v, &o->csv_path); }},
    {"--output", "an output CSV path",
     [](const std::string& v, ExtractOptions* o) { return parse_path(v, &o->csv_path); }},
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

// "-3" is a (bad) value for --nfeatures, while "-o" after --draw means the value is missing.
bool is_option_name(const std::string& arg) {
  return is_option(arg) && !std::isdigit(static_cast<unsigned char>(arg[1])) && arg[1] != '.';
}

}  // namespace

const char* extract_usage() {
  return "usage: gpusift-extract [options] IMAGE -o OUT.csv\n"
         "       gpusift-extract --list-backends | --help\n"
         "Detects SIFT features in IMAGE (read as grayscale) and writes one CSV row per keypoint:\n"
         "x,y,size,angle,response,octave,d0,...,d127.\n"
         "options:\n"
         "  -o, --output PATH         CSV to write (required)\n"
         "  --method sift             feature type (only sift)\n"
         "  --backend cpu|cuda|auto   default auto: cuda when a device is present, else cpu\n"
         "  --upscale 0|1             double the image first, as OpenCV does (default 1)\n"
         "  --nfeatures N             keep the N strongest keypoints (default 0: all)\n"
         "  --descriptor float|uint8|rootsift|none   default float\n"
         "  --n-octave-layers N       default 3\n"
         "  --contrast-threshold F    default 0.04\n"
         "  --edge-threshold F        default 10\n"
         "  --sigma F                 default 1.6\n"
         "  --max-keypoints N         keypoint capacity (default 65536)\n"
         "  --cuda-device N           CUDA device index\n"
         "  --bench N                 time N extractions after 2 warm-ups, print the median\n"
         "  --draw OUT.png            also write the image with the keypoints drawn\n"
         "  --list-backends           print the backends built in, and whether a GPU is present\n"
         "  -h, --help                print this help\n"
         "Errors print one line on stderr and exit with status 2.\n";
}

std::string parse_extract_options(int argc, const char* const* argv, ExtractOptions* options) {
  bool options_ended = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (options_ended || !is_option(arg)) {
      if (!options->image_path.empty())
        return "more than one IMAGE given: '" + options->image_path + "' and '" + arg + "'";
      options->image_path = arg;
      continue;
    }
    if (arg == "--") {
      options_ended = true;
    } else if (arg == "-h" || arg == "--help") {
      options->show_help = true;
    } else if (arg == "--list-backends") {
      options->list_backends = true;
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
    }
  }
  if (options->show_help || options->list_backends)
    return "";
  if (options->image_path.empty())
    return "missing IMAGE argument (see --help)";
  if (options->csv_path.empty())
    return "missing -o OUT.csv";
  try {
    validate(options->params);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace gpusift::tools
