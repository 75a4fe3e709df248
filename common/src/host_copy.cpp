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
                          const std::function<bool(int)>& wait_for_piece) {
  if (bytes == 0)
    return true;
  const int pieces = static_cast<int>((bytes + piece_bytes - 1) / piece_bytes);
  const int threads = std::min({pieces, kMaxCopyThreads, omp_get_max_threads()});
  const auto* from = static_cast<const unsigned char*>(src);
  auto* to = static_cast<unsigned char*>(dst);
  std::atomic<bool> complete{true};
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (int piece = 0; piece < pieces; ++piece) {
    if (!complete.load(std::memory_order_relaxed) || !wait_for_piece(piece)) {
      complete = false;
      continue;
    }
    const size_t first = static_cast<size_t>(piece) * piece_bytes;
    std::memcpy(to + first, from + first, std::min(piece_bytes, bytes - first));
  }
  return complete;
}

}  // namespace gpusift
