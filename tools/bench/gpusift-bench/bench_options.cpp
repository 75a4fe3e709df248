// SPDX-License-Identifier: LGPL-2.1-or-later
#include "bench_options.h"

#include <sstream>
#include <string>

#include "parse_number.h"

#ifndef GPUSIFT_BENCH_DEFAULT_IMAGE
#error "GPUSIFT_BENCH_DEFAULT_IMAGE must name the default benchmark image"
#endif

namespace gpusift::tools {

namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ','))
    items.push_back(item);
  return items;
}

bool parse_size(const std::string& text, FrameSize* size) {
  const size_t x = text.find('x');
  return x != std::string::npos && parse_int(text.substr(0, x), 16, 16384, &size->width) &&
         parse_int(text.substr(x + 1), 16, 16384, &size->height);
}

bool parse_sizes(const std::string& text, std::vector<FrameSize>* sizes) {
  sizes->clear();
  for (const std::string& item : split_list(text)) {
    FrameSize size{};
    if (!parse_size(item, &size))
      return false;
    sizes->push_back(size);
  }
  return !sizes->empty();
}

bool parse_backends(const std::string& text, std::vector<Backend>* backends) {
  backends->clear();
  for (const std::string& item : split_list(text)) {
    Backend backend{};
    if (!parse_backend(item, &backend) || backend == Backend::kAuto)
      return false;
    backends->push_back(backend);
  }
  return !backends->empty();
}

bool parse_upscales(const std::string& text, std::vector<bool>* upscales) {
  // Upscaled rows first: they are the ones comparable with OpenCV.
  if (text == "both")
    *upscales = {true, false};
  else if (text == "0" || text == "1")
    *upscales = {text == "1"};
  else
    return false;
  return true;
}

void set_defaults(BenchOptions* options) {
  options->image_path = GPUSIFT_BENCH_DEFAULT_IMAGE;
  options->sizes = {{640, 480}, {1280, 720}, {1920, 1080}, {3840, 2160}};
  options->backends = {Backend::kCpu};
  for (Backend backend : built_backends()) {
    if (backend == Backend::kCuda)
      options->backends.push_back(Backend::kCuda);
  }
  options->upscales = {true, false};
}

}  // namespace

const char* bench_usage() {
  return "usage: gpusift-bench [--image PATH] [--runs N] [--sizes WxH,...] [--backends cpu,cuda]\n"
         "                     [--upscale 0|1|both]\n"
         "Times gpusift's backends against OpenCV's SIFT on one image resized to each size and\n"
         "prints a markdown table. Defaults: tests/data/astronaut.png, 10 runs (50 for cuda),\n"
         "640x480,1280x720,1920x1080,3840x2160, every backend built in, both upscale settings.\n";
}

std::string parse_bench_options(int argc, const char* const* argv, BenchOptions* options) {
  set_defaults(options);
  for (int i = 1; i < argc; ++i) {
    const std::string name = argv[i];
    if (name == "-h" || name == "--help") {
      options->show_help = true;
      continue;
    }
    if (i + 1 >= argc)
      return "missing value for " + name + " (see --help)";
    const std::string value = argv[++i];
    bool ok = true;
    if (name == "--image")
      options->image_path = value;
    else if (name == "--runs")
      ok = parse_int(value, 1, 100000, &options->runs);
    else if (name == "--sizes")
      ok = parse_sizes(value, &options->sizes);
    else if (name == "--backends")
      ok = parse_backends(value, &options->backends);
    else if (name == "--upscale")
      ok = parse_upscales(value, &options->upscales);
    else
      return "unknown option '" + name + "' (see --help)";
    if (!ok)
      return "bad value '" + value + "' for " + name + " (see --help)";
  }
  return "";
}

}  // namespace gpusift::tools
