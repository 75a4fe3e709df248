// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/host_copy.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace gpusift {

namespace {

// Each thread takes at least this much: below it, waking threads costs more than it saves, and
// in a busy pipeline (an encoder beside us) idle OpenMP threads spinning for work would take
// cores from it.
constexpr size_t kBytesPerThread = 128 * 1024;
// A few cores already reach the memory bandwidth.
constexpr int kMaxCopyThreads = 4;

}  // namespace

void copy_in_parallel(const void* src, size_t bytes, void* dst) {
  const int threads = static_cast<int>(
      std::min<size_t>({bytes / kBytesPerThread, static_cast<size_t>(kMaxCopyThreads),
                        static_cast<size_t>(omp_get_max_threads())}));
  if (threads < 2) {
    if (bytes > 0)
      std::memcpy(dst, src, bytes);
    return;
  }
  const auto* from = static_cast<const unsigned char*>(src);
  auto* to = static_cast<unsigned char*>(dst);
  // Equal slices, each a whole number of cache lines.
  const size_t slice = ((bytes + threads - 1) / threads + 63) / 64 * 64;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) {
    const size_t first = std::min(bytes, static_cast<size_t>(t) * slice);
    std::memcpy(to + first, from + first, std::min(slice, bytes - first));
  }
}

bool copy_pieces_as_ready(const void* src, size_t bytes, size_t piece_bytes, void* dst,
                          const std::function<bool(int)>& piece_ready,
                          const std::function<bool()>& writer_running) {
  if (bytes == 0)
    return true;
  const int pieces = static_cast<int>((bytes + piece_bytes - 1) / piece_bytes);
  const auto* from = static_cast<const unsigned char*>(src);
  auto* to = static_cast<unsigned char*>(dst);
  std::atomic<bool> given_up{false};
  std::atomic<int> copied{0};
  // Waits for the piece, unless the copy is given up meanwhile, then copies it.
  const auto take = [&](int piece, const std::function<bool()>& keep_waiting) {
    if (!wait_while_writer_runs([&] { return piece_ready(piece); }, keep_waiting))
      return false;
    std::atomic_thread_fence(std::memory_order_acquire);
    const size_t first = static_cast<size_t>(piece) * piece_bytes;
    std::memcpy(to + first, from + first, std::min(piece_bytes, bytes - first));
    copied.fetch_add(1, std::memory_order_release);
    return true;
  };
  const std::function<bool()> not_given_up = [&] {
    return !given_up.load(std::memory_order_relaxed);
  };
  // Once the writer has stopped, whatever it wrote is visible: a piece not ready then never is.
  const std::function<bool()> writer_still_running = [&] {
    if (writer_running())
      return true;
    for (int piece = 0; piece < pieces; ++piece) {
      if (!piece_ready(piece))
        given_up = true;
    }
    return false;
  };
  // Every thread copies its turn of the pieces, the caller too, so that the team is as large as
  // copy_in_parallel's, which stages each frame of a pipeline from system memory. With one thread
  // more, only watching (0ed418d), such a pipeline lost 6-27 % of its frames a second; with teams
  // of four, as before 0ed418d, it did not (H100, jobs 91-93).
  const int team = std::min({pieces, kMaxCopyThreads, omp_get_max_threads()});
#pragma omp parallel num_threads(team)
  {
    const int threads = omp_get_num_threads(), me = omp_get_thread_num();
    const std::function<bool()>& keep_waiting = me == 0 ? writer_still_running : not_given_up;
    for (int piece = me; piece < pieces && take(piece, keep_waiting); piece += threads) {
    }
    // Alone inside another parallel region, the caller has copied every piece in order by now.
    if (me == 0) {
      while (copied.load(std::memory_order_acquire) < pieces && !given_up &&
             writer_still_running()) {
      }
    }
  }
  return !given_up && copied.load() == pieces;
}

}  // namespace gpusift
