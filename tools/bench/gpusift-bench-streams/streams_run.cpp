// SPDX-License-Identifier: LGPL-2.1-or-later
#include "streams_run.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "gpusift/cuda_sift.h"
#include "start_gate.h"
#include "stream_instance.h"

namespace gpusift::tools {

namespace {

using Clock = std::chrono::steady_clock;

struct Gates {
  explicit Gates(int parties) : ready(parties), go(parties), done(parties) {}
  StartGate ready;  // every instance built and warmed up
  StartGate go;     // the main thread has taken the memory figures and the start time
  StartGate done;   // every instance finished: none frees memory (which synchronises the
                    // device) while another still runs
};

struct Slot {
  std::string error;
  Clock::time_point end;
  int keypoints = 0;
  size_t device_bytes = 0;
  size_t pinned_bytes = 0;
  std::vector<FrameInterval> intervals;
};

// Every thread passes every gate, failed or not, so that no other waits forever.
void instance_thread(const StreamsOptions& options, const InstanceSettings& settings,
                     cudaEvent_t reference, int index, Gates* gates, Slot* slot) {
  std::unique_ptr<StreamInstance> instance;
  std::unique_ptr<FrameEvents> events;
  try {
    instance = std::make_unique<StreamInstance>(settings);
    if (options.timeline)
      events = std::make_unique<FrameEvents>(options.frames);
    instance->run(options.warm_up, nullptr);
    slot->device_bytes = instance->extractor().reserved_device_bytes();
    slot->pinned_bytes = instance->extractor().reserved_pinned_bytes();
  } catch (const std::exception& e) {
    slot->error = e.what();
  }
  gates->ready.arrive_and_wait();
  gates->go.arrive_and_wait();
  if (slot->error.empty()) {
    try {
      instance->run(options.frames, events.get());
      slot->end = Clock::now();
      slot->keypoints = instance->keypoints();
      if (events) {
        instance->synchronize();
        slot->intervals = events->intervals(reference, index);
      }
    } catch (const std::exception& e) {
      slot->error = e.what();
    }
  }
  gates->done.arrive_and_wait();
}

// Over devices 0..gpus-1.
size_t used_device_bytes(int gpus) {
  size_t used = 0;
  for (int id = 0; id < gpus; ++id) {
    const ScopedCudaDevice device(id);
    size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) != cudaSuccess)
      throw std::runtime_error("cudaMemGetInfo failed");
    used += total - free;
  }
  return used;
}

}  // namespace

StreamsResult run_streams(const StreamsOptions& options, const std::vector<uint8_t>& nv12,
                          int streams) {
  const ScopedCudaDevice device(0);
  cudaEvent_t reference = nullptr;
  if (cudaEventCreate(&reference) != cudaSuccess)
    throw std::runtime_error("cudaEventCreate failed");
  std::vector<InstanceSettings> settings;
  for (int i = 0; i < streams; ++i)
    settings.push_back(InstanceSettings{&nv12, i % options.gpus, options.width, options.height,
                                        options.in_flight, options.legacy_wait});
  const size_t used_before = used_device_bytes(options.gpus);
  Gates gates(streams + 1);
  std::vector<Slot> slots(streams);
  std::vector<std::thread> threads;
  for (int i = 0; i < streams; ++i)
    threads.emplace_back(instance_thread, std::cref(options), std::cref(settings[i]), reference, i,
                         &gates, &slots[i]);
  gates.ready.arrive_and_wait();
  const size_t used_after = used_device_bytes(options.gpus);
  cudaEventRecord(reference, cudaStreamLegacy);
  cudaEventSynchronize(reference);
  const Clock::time_point start = Clock::now();
  gates.go.arrive_and_wait();
  gates.done.arrive_and_wait();
  for (std::thread& thread : threads)
    thread.join();
  cudaEventDestroy(reference);

  StreamsResult result;
  result.streams = streams;
  Clock::time_point end = start;
  for (int i = 0; i < streams; ++i) {
    const Slot& slot = slots[i];
    if (!slot.error.empty())
      throw std::runtime_error("instance " + std::to_string(i) + ": " + slot.error);
    end = std::max(end, slot.end);
    result.device_bytes += double(slot.device_bytes) / streams;
    result.pinned_bytes += double(slot.pinned_bytes) / streams;
    result.intervals.insert(result.intervals.end(), slot.intervals.begin(), slot.intervals.end());
  }
  result.wall_s = std::chrono::duration<double>(end - start).count();
  result.aggregate_fps = double(streams) * options.frames / result.wall_s;
  result.used_growth_bytes = (double(used_after) - double(used_before)) / streams;
  result.keypoints = slots[0].keypoints;
  result.overlap = measure_overlap(result.intervals);
  return result;
}

}  // namespace gpusift::tools
