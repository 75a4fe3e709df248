// SPDX-License-Identifier: LGPL-2.1-or-later
#include "soak_options.h"

#include <climits>
#include <cstdio>

#include "parse_number.h"

namespace gpusift::soak {

namespace {

bool parse_long(const std::string& text, long min_value, long* value) {
  int parsed = 0;
  if (!tools::parse_int(text, static_cast<int>(min_value), INT_MAX, &parsed))
    return false;
  *value = parsed;
  return true;
}

bool parse_size(const std::string& text, int* width, int* height) {
  const size_t x = text.find('x');
  return x != std::string::npos && tools::parse_int(text.substr(0, x), 16, 16384, width) &&
         tools::parse_int(text.substr(x + 1), 16, 16384, height);
}

bool parse_tolerance(const std::string& text, double* mib) {
  return tools::parse_finite_double(text, mib) && *mib >= 0;
}

}  // namespace

const char* soak_usage() {
  return "usage: gpusift-soak [--backend cpu|cuda] [--method sift|surf] [--frames N]\n"
         "                    [--size WxH] [--sample-every N] [--warmup-frames N]\n"
         "                    [--host-tolerance-mib F] [--device-tolerance-mib F] [--csv OUT]\n"
         "Runs N frames of a synthetic camera panning over a textured scene through\n"
         "appsrc ! gpusiftfilter (float descriptors) ! fakesink in this process, samples the\n"
         "host RSS and the GPU's used memory every --sample-every frames, prints the series\n"
         "and exits 0 when both stay within their tolerance after --warmup-frames and every\n"
         "frame carried its keypoints and descriptors; 1 otherwise, 2 on bad usage.\n"
         "Defaults: cpu, sift, 10000 frames of 320x240, samples every 1000 frames after 2000\n"
         "frames of warm-up, 8 MiB host and 4 MiB device tolerance.\n"
         "Needs GST_PLUGIN_PATH to name the folder of the gpusift plugin.\n";
}

std::string parse_soak_options(int argc, const char* const* argv, SoakOptions* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string name = argv[i];
    if (name == "-h" || name == "--help") {
      o->show_help = true;
      continue;
    }
    if (i + 1 >= argc)
      return "missing value for " + name + " (see --help)";
    const std::string value = argv[++i];
    bool ok = false;
    if (name == "--backend")
      ok = (o->backend = value) == "cpu" || value == "cuda";
    else if (name == "--method")
      ok = (o->method = value) == "sift" || value == "surf";
    else if (name == "--frames")
      ok = parse_long(value, 1, &o->frames);
    else if (name == "--size")
      ok = parse_size(value, &o->width, &o->height);
    else if (name == "--sample-every")
      ok = parse_long(value, 1, &o->sample_every);
    else if (name == "--warmup-frames")
      ok = parse_long(value, 0, &o->warmup_frames);
    else if (name == "--host-tolerance-mib")
      ok = parse_tolerance(value, &o->host_tolerance_mib);
    else if (name == "--device-tolerance-mib")
      ok = parse_tolerance(value, &o->device_tolerance_mib);
    else if (name == "--csv")
      ok = !(o->csv_path = value).empty();
    else
      return "unknown option '" + name + "' (see --help)";
    if (!ok)
      return "bad value '" + value + "' for " + name + " (see --help)";
  }
  return "";
}

}  // namespace gpusift::soak
