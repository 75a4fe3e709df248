// SPDX-License-Identifier: LGPL-2.1-or-later
#include "streams_options.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>

#include "gpusift/cuda_sift.h"

namespace gpusift::tools {

const char kStreamsUsage[] =
    "usage: gpusift-bench-streams [--image IMAGE.pnm] [--streams 1,2,4,8,16] [--size 1920x1080] "
    "[--frames 300] [--warm-up 20] [--in-flight 1|2] [--legacy-wait 0|1] [--gpus 1] "
    "[--timeline] [--timeline-csv PATH]\n";

namespace {

const char* const kValueFlags[] = {"--image",       "--streams",      "--size",
                                   "--frames",      "--warm-up",      "--in-flight",
                                   "--legacy-wait", "--timeline-csv", "--gpus"};

bool parse_int(const std::string& text, int* value) {
  char* end = nullptr;
  const long parsed = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || parsed < -1000000 || parsed > 1000000)
    return false;
  *value = static_cast<int>(parsed);
  return true;
}

bool parse_counts(const std::string& text, std::vector<int>* counts) {
  counts->clear();
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(',', start), text.size());
    int count = 0;
    if (!parse_int(text.substr(start, end - start), &count) || count < 1 || count > 256)
      return false;
    counts->push_back(count);
    start = end + 1;
  }
  return !counts->empty();
}

// NV12 needs even sides.
bool parse_size(const std::string& text, int* width, int* height) {
  char tail = 0;
  return std::sscanf(text.c_str(), "%dx%d%c", width, height, &tail) == 2 && *width >= 2 &&
         *height >= 2 && *width % 2 == 0 && *height % 2 == 0;
}

}  // namespace

std::string parse_streams_options(int argc, const char* const* argv, StreamsOptions* options) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--timeline") {
      options->timeline = true;
      continue;
    }
    if (std::find(std::begin(kValueFlags), std::end(kValueFlags), flag) == std::end(kValueFlags))
      return "unknown option " + flag;
    if (i + 1 >= argc)
      return "missing value for " + flag;
    const std::string value = argv[++i];
    int number = 0;
    if (flag == "--image") {
      options->image = value;
    } else if (flag == "--streams") {
      if (!parse_counts(value, &options->streams))
        return "bad --streams " + value + " (counts 1..256, comma-separated)";
    } else if (flag == "--size") {
      if (!parse_size(value, &options->width, &options->height))
        return "bad --size " + value + " (WxH, even sides)";
    } else if (flag == "--frames" || flag == "--warm-up" || flag == "--in-flight" ||
               flag == "--legacy-wait" || flag == "--gpus") {
      if (!parse_int(value, &number))
        return "bad " + flag + " " + value;
      if (flag == "--frames")
        options->frames = number;
      else if (flag == "--warm-up")
        options->warm_up = number;
      else if (flag == "--in-flight")
        options->in_flight = number;
      else if (flag == "--gpus")
        options->gpus = number;
      else
        options->legacy_wait = number != 0;
    } else {  // --timeline-csv
      options->timeline_csv = value;
      options->timeline = true;
    }
  }
  if (options->frames < 1 || options->warm_up < 0)
    return "--frames must be >= 1 and --warm-up >= 0";
  if (options->in_flight < 1 || options->in_flight > CudaSiftExtractor::kMaxInFlight)
    return "--in-flight must be 1.." + std::to_string(CudaSiftExtractor::kMaxInFlight);
  if (options->gpus < 1 || options->gpus > 16)
    return "--gpus must be 1..16";
  // The frames' events are timed against one reference event, which only its own device's
  // events can be compared with.
  if (options->timeline && options->gpus > 1)
    return "--timeline needs --gpus 1";
  return "";
}

}  // namespace gpusift::tools
