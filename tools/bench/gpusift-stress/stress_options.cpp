// SPDX-License-Identifier: LGPL-2.1-or-later
#include "stress_options.h"

#include <algorithm>
#include <climits>

#include "parse_number.h"

namespace gpusift::stress {

namespace {

// Comma-separated items, none empty.
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    items.push_back(text.substr(start, comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return items;
}

bool parse_backends(const std::string& text, std::vector<std::string>* backends) {
  backends->clear();
  for (const std::string& item : split_list(text)) {
    if ((item != "cuda" && item != "cpu") ||
        std::find(backends->begin(), backends->end(), item) != backends->end())
      return false;
    backends->push_back(item);
  }
  return !backends->empty();
}

// Even sizes only: the 4:2:0 formats among the caps changes need them.
bool parse_sizes(const std::string& text, std::vector<FrameSize>* sizes) {
  sizes->clear();
  for (const std::string& item : split_list(text)) {
    const size_t x = item.find('x');
    FrameSize size{};
    if (x == std::string::npos || !tools::parse_int(item.substr(0, x), 16, 4096, &size.width) ||
        !tools::parse_int(item.substr(x + 1), 16, 4096, &size.height) || size.width % 2 != 0 ||
        size.height % 2 != 0)
      return false;
    sizes->push_back(size);
  }
  return !sizes->empty();
}

bool parse_seconds(const std::string& text, double min_value, double* seconds) {
  return tools::parse_finite_double(text, seconds) && *seconds >= min_value;
}

}  // namespace

const char* stress_usage() {
  return "usage: gpusift-stress [--pipelines N] [--seconds S] [--backends cuda,cpu] [--seed N]\n"
         "                      [--warmup-seconds S] [--sample-seconds S]\n"
         "                      [--host-tolerance-mib F] [--device-tolerance-mib F]\n"
         "                      [--action-interval S] [--stall-seconds S]\n"
         "                      [--sizes WxH,WxH,...] [--reference IMAGE] [--verbose]\n"
         "Runs N pipelines at once in this process for S seconds, pipeline i on backend\n"
         "i mod the list: a source (appsrc with a synthetic panning camera, or videotestsrc)\n"
         "! capsfilter ! gpusiftfilter descriptor=float ! keypointtracker, some with\n"
         "keypointmatcher reference=IMAGE and some with videoconvert ! keypointoverlay,\n"
         "! appsink. Each pipeline, at seeded random times about --action-interval apart:\n"
         "changes the capsfilter's size and format, seeks (flushing), cycles PLAYING-PAUSED-\n"
         "PLAYING, PLAYING-READY-PLAYING and NULL (sometimes a new pipeline), and ends the\n"
         "stream with EOS and restarts it. It checks that every buffer that enters\n"
         "gpusiftfilter leaves at the appsink, once and in order, but for at most the frames\n"
         "in flight at a flush or a stop, all of them at EOS; that each carries a keypoints\n"
         "and a tracks meta; that no bus posts an error and no pipeline stalls for\n"
         "--stall-seconds; and that the host RSS and the GPU's used memory (CUDA builds),\n"
         "sampled every --sample-seconds, grow by no more than their tolerance after the\n"
         "warm-up: the median of the last third of the samples against the first third.\n"
         "Exits 0 when every check passes, 1 otherwise, 2 on bad usage.\n"
         "Defaults: 16 pipelines, 600 s, cuda,cpu, seed 1, warm-up 60 s (a third of the run\n"
         "when shorter), a sample every 5 s (every 1/20 of the run when shorter), 64 MiB for\n"
         "each tolerance, 2 s between actions, 60 s stall, sizes 320x240,640x360,256x144,\n"
         "352x288, the reference a crop of the synthetic scene.\n"
         "Needs GST_PLUGIN_PATH to name the folder of the gpusift plugin.\n";
}

std::string parse_stress_options(int argc, const char* const* argv, StressOptions* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string name = argv[i];
    if (name == "-h" || name == "--help") {
      o->show_help = true;
      continue;
    }
    if (name == "-v" || name == "--verbose") {
      o->verbose = true;
      continue;
    }
    if (i + 1 >= argc)
      return "missing value for " + name + " (see --help)";
    const std::string value = argv[++i];
    bool ok = false;
    int number = 0;
    if (name == "--pipelines")
      ok = tools::parse_int(value, 1, 256, &o->pipelines);
    else if (name == "--seconds")
      ok = parse_seconds(value, 1, &o->seconds);
    else if (name == "--backends")
      ok = parse_backends(value, &o->backends);
    else if (name == "--seed")
      ok = tools::parse_int(value, 0, INT_MAX, &number) && (o->seed = number, true);
    else if (name == "--warmup-seconds")
      ok = parse_seconds(value, 0, &o->warmup_seconds);
    else if (name == "--sample-seconds")
      ok = parse_seconds(value, 0.1, &o->sample_seconds);
    else if (name == "--host-tolerance-mib")
      ok = parse_seconds(value, 0, &o->host_tolerance_mib);
    else if (name == "--device-tolerance-mib")
      ok = parse_seconds(value, 0, &o->device_tolerance_mib);
    else if (name == "--action-interval")
      ok = parse_seconds(value, 0.05, &o->action_interval);
    else if (name == "--stall-seconds")
      ok = parse_seconds(value, 1, &o->stall_seconds);
    else if (name == "--sizes")
      ok = parse_sizes(value, &o->sizes);
    else if (name == "--reference")
      ok = !(o->reference = value).empty();
    else
      return "unknown option '" + name + "' (see --help)";
    if (!ok)
      return "bad value '" + value + "' for " + name + " (see --help)";
  }
  if (o->warmup_seconds < 0)
    o->warmup_seconds = std::min(60.0, o->seconds / 3);
  if (o->sample_seconds < 0)
    o->sample_seconds = std::max(0.5, std::min(5.0, o->seconds / 20));
  return "";
}

}  // namespace gpusift::stress
