// SPDX-License-Identifier: LGPL-2.1-or-later
// Wall-clock timing shared by gpusift-extract --bench and gpusift-bench.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace gpusift::tools {

inline constexpr int kWarmUpRuns = 2;

// Calls `run` kWarmUpRuns times untimed (first-touch allocations, caches, thread pools), then
// `runs` times timed; returns the median in milliseconds. runs must be >= 1.
template <typename Run>
double median_milliseconds(int runs, Run&& run) {
  for (int i = 0; i < kWarmUpRuns; ++i)
    run();
  std::vector<double> times_ms;
  times_ms.reserve(runs);
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    const auto stop = std::chrono::steady_clock::now();
    times_ms.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }
  std::sort(times_ms.begin(), times_ms.end());
  const size_t middle = times_ms.size() / 2;
  return times_ms.size() % 2 == 1 ? times_ms[middle]
                                  : 0.5 * (times_ms[middle - 1] + times_ms[middle]);
}

}  // namespace gpusift::tools
