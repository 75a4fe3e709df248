// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-stress: many pipelines at once on the CUDA and CPU backends for a while, with caps
// changes, pause cycles, flushing seeks and restarts mixed in (stress_pipeline.h). Fails when a
// pipeline errs, stalls, loses a buffer or lets one out without its metas, or when the host's
// resident memory or the GPU's used memory grows past a tolerance after the warm-up. Prints a
// table per backend and the memory series.
//   gpusift-stress [--pipelines 16] [--seconds 600] [--backends cuda,cpu] [--reference IMAGE]
//                  [--seed 1] [--warmup-seconds 60] [--host-tolerance-mib 64]
//                  [--device-tolerance-mib 64] [--sample-seconds 5]
#include <gst/gst.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "memory_probe.h"
#include "parse_number.h"
#include "stress_pipeline.h"

namespace {

struct Options {
  int pipelines = 16;
  int seconds = 600;
  std::vector<std::string> backends{"cuda", "cpu"};
  std::string reference;
  int seed = 1;
  int warmup_seconds = 60;
  int host_tolerance_mib = 64;
  int device_tolerance_mib = 64;
  int sample_seconds = 5;
};

bool parse(int argc, char** argv, Options* o, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    const std::string name = argv[i];
    if (i + 1 >= argc) {
      *error = "missing value for " + name;
      return false;
    }
    const std::string value = argv[++i];
    bool ok = true;
    if (name == "--pipelines")
      ok = gpusift::tools::parse_int(value, 1, 256, &o->pipelines);
    else if (name == "--seconds")
      ok = gpusift::tools::parse_int(value, 1, 86400, &o->seconds);
    else if (name == "--seed")
      ok = gpusift::tools::parse_int(value, 0, 1 << 30, &o->seed);
    else if (name == "--warmup-seconds")
      ok = gpusift::tools::parse_int(value, 0, 86400, &o->warmup_seconds);
    else if (name == "--host-tolerance-mib")
      ok = gpusift::tools::parse_int(value, 0, 1 << 20, &o->host_tolerance_mib);
    else if (name == "--device-tolerance-mib")
      ok = gpusift::tools::parse_int(value, 0, 1 << 20, &o->device_tolerance_mib);
    else if (name == "--sample-seconds")
      ok = gpusift::tools::parse_int(value, 1, 3600, &o->sample_seconds);
    else if (name == "--reference")
      o->reference = value;
    else if (name == "--backends") {
      o->backends.clear();
      size_t start = 0;
      while (start <= value.size()) {
        const size_t comma = value.find(',', start);
        const std::string b = value.substr(start, comma - start);
        if (b != "cpu" && b != "cuda")
          ok = false;
        o->backends.push_back(b);
        if (comma == std::string::npos)
          break;
        start = comma + 1;
      }
    } else {
      *error = "unknown option " + name;
      return false;
    }
    if (!ok) {
      *error = "bad value '" + value + "' for " + name;
      return false;
    }
  }
  return true;
}

struct Sample {
  int second;
  int64_t host;
  int64_t device;
};

double mib(int64_t bytes) {
  return static_cast<double>(bytes) / (1 << 20);
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  Options options;
  std::string error;
  if (!parse(argc, argv, &options, &error)) {
    std::fprintf(stderr, "gpusift-stress: %s\n", error.c_str());
    return 2;
  }
  std::vector<std::unique_ptr<gpusift::stress::StressPipeline>> pipelines;
  for (int i = 0; i < options.pipelines; ++i) {
    gpusift::stress::PipelineSetup setup;
    setup.index = i;
    setup.backend = options.backends[i % options.backends.size()];
    // Every fourth pipeline also finds an object, when a reference is given.
    if (i % 4 == 3)
      setup.reference = options.reference;
    setup.seed = static_cast<uint32_t>(options.seed * 1000 + i);
    pipelines.push_back(std::make_unique<gpusift::stress::StressPipeline>(setup));
  }
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (auto& p : pipelines)
    threads.emplace_back([&p, &stop] { p->run(stop); });

  std::vector<Sample> samples;
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const int second = static_cast<int>(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start)
            .count());
    samples.push_back(
        {second, gpusift::soak::host_rss_bytes(), gpusift::soak::device_used_bytes()});
    if (second >= options.seconds)
      break;
    std::this_thread::sleep_for(std::chrono::seconds(options.sample_seconds));
  }
  stop = true;
  for (std::thread& t : threads)
    t.join();
  samples.push_back(
      {options.seconds, gpusift::soak::host_rss_bytes(), gpusift::soak::device_used_bytes()});

  // Per backend.
  std::map<std::string, gpusift::stress::PipelineCounts> totals;
  std::map<std::string, int> per_backend;
  bool failed = false;
  for (const auto& p : pipelines) {
    const gpusift::stress::PipelineCounts& c = p->counts();
    auto& t = totals[p->setup().backend];
    per_backend[p->setup().backend]++;
    t.frames_in += c.frames_in;
    t.frames_out += c.frames_out;
    t.episodes += c.episodes;
    t.caps_changes += c.caps_changes;
    t.pause_cycles += c.pause_cycles;
    t.seeks += c.seeks;
    t.restarts += c.restarts;
    t.errors += c.errors;
    t.warnings += c.warnings;
    if (!c.first_error.empty()) {
      std::printf("FAIL %s\n", c.first_error.c_str());
      failed = true;
    }
  }
  // Memory after the warm-up: the first sample past it against the largest and the last.
  const Sample* base = nullptr;
  int64_t host_max = 0, device_max = 0;
  for (const Sample& s : samples) {
    if (s.second < options.warmup_seconds)
      continue;
    if (base == nullptr)
      base = &s;
    host_max = std::max(host_max, s.host);
    device_max = std::max(device_max, s.device);
  }
  std::printf("memory series (s: host RSS MiB / GPU used MiB):");
  for (size_t i = 0; i < samples.size(); i += std::max<size_t>(1, samples.size() / 20))
    std::printf(" %d:%.0f/%.0f", samples[i].second, mib(samples[i].host), mib(samples[i].device));
  std::printf("\n");
  if (base != nullptr) {
    const Sample& last = samples.back();
    std::printf(
        "after %d s of warm-up: host %.0f -> last %.0f, max %.0f MiB; GPU %.0f -> last "
        "%.0f, max %.0f MiB\n",
        options.warmup_seconds, mib(base->host), mib(last.host), mib(host_max), mib(base->device),
        mib(last.device), mib(device_max));
    if (host_max - base->host > static_cast<int64_t>(options.host_tolerance_mib) << 20) {
      std::printf("FAIL host memory grew by %.0f MiB (tolerance %d)\n", mib(host_max - base->host),
                  options.host_tolerance_mib);
      failed = true;
    }
    if (base->device >= 0 &&
        device_max - base->device > static_cast<int64_t>(options.device_tolerance_mib) << 20) {
      std::printf("FAIL GPU memory grew by %.0f MiB (tolerance %d)\n",
                  mib(device_max - base->device), options.device_tolerance_mib);
      failed = true;
    }
  }
  std::printf(
      "| backend | pipelines | episodes | frames in | frames out | caps changes | pause "
      "cycles | seeks | restarts | errors | warnings |\n|---|---|---|---|---|---|---|---|"
      "---|---|---|\n");
  for (const auto& [backend, t] : totals)
    std::printf(
        "| %s | %d | %llu | %llu | %llu | %llu | %llu | %llu | %llu | %llu | %llu |\n",
        backend.c_str(), per_backend[backend], static_cast<unsigned long long>(t.episodes),
        static_cast<unsigned long long>(t.frames_in), static_cast<unsigned long long>(t.frames_out),
        static_cast<unsigned long long>(t.caps_changes),
        static_cast<unsigned long long>(t.pause_cycles), static_cast<unsigned long long>(t.seeks),
        static_cast<unsigned long long>(t.restarts), static_cast<unsigned long long>(t.errors),
        static_cast<unsigned long long>(t.warnings));
  std::printf("%s\n", failed ? "stress: FAILED" : "stress: passed");
  pipelines.clear();
  gst_deinit();
  return failed ? 1 : 0;
}
