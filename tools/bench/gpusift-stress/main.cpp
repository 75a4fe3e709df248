// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-stress: many pipelines at once, each caps-changed, seeked, paused, stopped, restarted
// and ended at random, on the CUDA and the CPU backend side by side; no error, every buffer out,
// host and device memory flat. See stress_usage().
#include <gst/gst.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "action_gate.h"
#include "memory_probe.h"
#include "memory_series.h"
#include "pipeline_controller.h"
#include "reference_image.h"
#include "stress_options.h"
#include "stress_report.h"
#include "synthetic_scene.h"

namespace gpusift::stress {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

using Controllers = std::vector<std::unique_ptr<PipelineController>>;

// Makes the RSS follow what the process holds. By default glibc raises its mmap threshold each
// time a large block is freed, after which frames and pyramids of changing sizes come from its
// arenas; with 16 threads allocating and freeing them, the free space kept in the arenas grows
// by tens of MiB over minutes without a leak (seen here, 8 CPU pipelines for 240 s: the heap in
// use flat at 70-117 MiB, the arenas' free space from 16 to 111 MiB, the RSS from 104 to 170
// MiB). A fixed threshold of 64 KiB maps those blocks on their own and unmaps them when freed:
// the RSS then stays within about 16 MiB of the heap in use. Trimming before each sample gives
// back what little free space the arenas still hold.
void steady_allocator() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 64 * 1024);
#endif
}

int64_t trimmed_host_rss() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
  return soak::host_rss_bytes();
}

// One sample between actions (see ActionGate); `frame` is every pipeline's frames out so far.
// An action that takes longer than `wait_us` is left to its controller to report: the sample is
// taken while it goes on.
soak::MemorySample take_sample(const Controllers& controllers, ActionGate& gate, gint64 start_us,
                               gint64 wait_us, uint64_t* last_frames, uint64_t* last_keypoints) {
  gate.close(wait_us);
  soak::MemorySample sample{0, (g_get_monotonic_time() - start_us) / 1e6, trimmed_host_rss(),
                            soak::device_used_bytes(), 0};
  gate.open();
  uint64_t frames = 0, keypoints = 0;
  for (const auto& c : controllers) {
    frames += c->frames_out();
    keypoints += c->keypoints_out();
  }
  sample.frame = static_cast<long>(frames);
  if (frames > *last_frames)
    sample.mean_keypoints = static_cast<double>(keypoints - *last_keypoints) /
                            static_cast<double>(frames - *last_frames);
  *last_frames = frames;
  *last_keypoints = keypoints;
  return sample;
}

bool all_done(const Controllers& controllers) {
  for (const auto& c : controllers) {
    if (!c->done())
      return false;
  }
  return true;
}

int run(int argc, char** argv) {
  StressOptions options;
  const std::string usage_error = parse_stress_options(argc, argv, &options);
  if (!usage_error.empty()) {
    std::fprintf(stderr, "gpusift-stress: %s\n", usage_error.c_str());
    return 2;
  }
  if (options.show_help) {
    std::fputs(stress_usage(), stdout);
    return 0;
  }
  steady_allocator();
  gst_init(&argc, &argv);

  std::string backends;
  for (const std::string& b : options.backends)
    backends += (backends.empty() ? "" : ",") + b;
  std::printf(
      "gpusift-stress: %d pipelines for %.0f s on %s, seed %u; an action every %.1f s per "
      "pipeline on average; memory every %.1f s, judged after %.0f s\n",
      options.pipelines, options.seconds, backends.c_str(), options.seed, options.action_interval,
      options.sample_seconds, options.warmup_seconds);
  std::vector<PipelinePlan> plans;
  for (int i = 0; i < options.pipelines; ++i)
    plans.push_back(plan_pipeline(options, i));
  std::fputs(plan_lines(plans).c_str(), stdout);
  std::fflush(stdout);

  const FrameSize& first = options.sizes.front();
  const soak::SyntheticScene scene(first.width, first.height);
  std::string reference = options.reference;
  if (reference.empty()) {
    std::string error;
    reference = write_reference_image(scene, &error);
    if (reference.empty()) {
      std::fprintf(stderr, "gpusift-stress: %s\n", error.c_str());
      return 1;
    }
  }

  ActionGate gate;
  const gint64 start_us = g_get_monotonic_time();
  const gint64 deadline_us = start_us + static_cast<gint64>(options.seconds * 1e6);
  Controllers controllers;
  for (const PipelinePlan& plan : plans)
    controllers.push_back(
        std::make_unique<PipelineController>(plan, options, scene, reference, gate, deadline_us));
  // An action waits for at most a few state changes and an EOS, each up to the stall limit.
  const gint64 stall_us = static_cast<gint64>(options.stall_seconds * 1e6);
  const gint64 longest_action_us = 4 * stall_us;
  std::vector<soak::MemorySample> samples;
  uint64_t last_frames = 0, last_keypoints = 0;
  samples.push_back(
      take_sample(controllers, gate, start_us, stall_us, &last_frames, &last_keypoints));
  std::vector<std::thread> threads;
  for (auto& c : controllers)
    threads.emplace_back([&c] { c->run(); });

  // The sampler: on time until the deadline, while the pipelines run on their own threads.
  for (int n = 1;; ++n) {
    const gint64 due = start_us + static_cast<gint64>(n * options.sample_seconds * 1e6);
    if (due >= deadline_us || g_get_monotonic_time() >= deadline_us)
      break;
    const gint64 now = g_get_monotonic_time();
    if (due > now)
      g_usleep(static_cast<gulong>(due - now));
    samples.push_back(
        take_sample(controllers, gate, start_us, stall_us, &last_frames, &last_keypoints));
  }
  // A pipeline stuck in a state change or a push would hold the report back for ever: past the
  // last action's time it is reported as hung, and the process ends without waiting for it.
  while (g_get_monotonic_time() < deadline_us + longest_action_us + 30 * G_USEC_PER_SEC &&
         !all_done(controllers))
    g_usleep(100 * 1000);
  if (!all_done(controllers)) {
    for (const auto& c : controllers) {
      gint64 since_us = 0;
      const std::string what = c->under_way(&since_us);
      if (!c->done())
        std::printf("FAIL pipeline %d did not finish: %s, for %.0f s\n", c->index(), what.c_str(),
                    (g_get_monotonic_time() - since_us) / 1e6);
    }
    std::printf("FAIL\n");
    std::fflush(stdout);
    std::_Exit(1);
  }
  for (std::thread& t : threads)
    t.join();
  const int64_t rss_after = trimmed_host_rss();

  std::vector<PipelineReport> reports;
  for (const auto& c : controllers)
    reports.push_back(c->report());
  controllers.clear();
  if (options.reference.empty())
    remove_reference_image(reference);

  std::printf("\n%s", series_lines(samples, false, "host RSS, MiB").c_str());
  std::printf("%s", series_lines(samples, true, "GPU used, MiB").c_str());
  std::printf("\n%s\n", backend_table(reports).c_str());
  uint64_t frames_out = 0, keypoints_out = 0;
  for (const PipelineReport& r : reports) {
    frames_out += r.ledger.left;
    keypoints_out += r.sink.keypoints;
  }
  // A sanity line: frames that carry no keypoints at all would test little.
  std::printf("%.1f frames/s out in all, %.0f keypoints per frame\n", frames_out / options.seconds,
              frames_out > 0 ? static_cast<double>(keypoints_out) / frames_out : 0.0);
  bool passed = true;
  std::fputs(failure_lines(reports).c_str(), stdout);
  for (const PipelineReport& r : reports) {
    if (r.failure_count > 0 || r.errors > 0)
      passed = false;
    if (r.ledger.left == 0) {
      std::printf("FAIL pipeline %d: no buffer came out\n", r.plan.index);
      passed = false;
    }
  }
  // Without a GPU (or a CUDA build) the device goes unmeasured; the host never may.
  const soak::SettledSeries host = soak::host_series_after(samples, options.warmup_seconds);
  const soak::SettledSeries device = soak::device_series_after(samples, options.warmup_seconds);
  bool device_sampled = false;
  for (const soak::MemorySample& s : samples)
    device_sampled |= s.device_used >= 0;
  bool host_flat = true, device_flat = true;
  std::fputs(memory_verdict("host RSS", host, true, options.warmup_seconds,
                            options.host_tolerance_mib, &host_flat)
                 .c_str(),
             stdout);
  std::fputs(memory_verdict("GPU used", device, device_sampled, options.warmup_seconds,
                            options.device_tolerance_mib, &device_flat)
                 .c_str(),
             stdout);
  if (!host.measured)
    std::printf("FAIL: the host RSS needs a longer run or a shorter warm-up\n");
  std::printf("host RSS once every pipeline is gone: %.1f MiB\n", rss_after / kMiB);
  passed = passed && host.measured && host_flat && device_flat;
  std::printf("%s\n", passed ? "PASS" : "FAIL");
  gst_deinit();
  return passed ? 0 : 1;
}

}  // namespace

}  // namespace gpusift::stress

int main(int argc, char** argv) {
  return gpusift::stress::run(argc, argv);
}
