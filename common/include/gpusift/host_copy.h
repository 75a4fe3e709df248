// SPDX-License-Identifier: LGPL-2.1-or-later
// Copies of large results into the caller's vectors on the host.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace gpusift {

// dst[0..bytes) = src[0..bytes). From 256 KB on, up to 4 OpenMP threads share the copy: one
// thread moves about 10-14 GB/s on server CPUs, less than a PCIe transfer delivers, and a 1080p
// frame's float descriptors (about 1 MB) are copied twice per frame on a pipeline's streaming
// thread.
void copy_in_parallel(const void* src, size_t bytes, void* dst);

// dst[0..bytes) = src[0..bytes), piece by piece as each may be read: a piece is piece_bytes long
// (the last one shorter), and piece_ready(i), which any thread may call, says whether piece i may
// be read. Up to 4 OpenMP threads, the caller among them, take the pieces in turn, each waiting
// for its own, so that the copy keeps pace with whatever writes the source. Only the caller calls
// writer_running() (a CUDA query, say, which belongs on the thread whose device is current), and
// the copy gives up once it returns false with a piece still not ready. False when it gave up.
bool copy_pieces_as_ready(const void* src, size_t bytes, size_t piece_bytes, void* dst,
                          const std::function<bool(int)>& piece_ready,
                          const std::function<bool()>& writer_running);

// Spins until ready() holds, then true; or false once writer_running() has returned false and
// ready(), asked after it, still does not hold: whatever the writer wrote before it stopped is
// seen by then. writer_running() is asked every `spins_per_query` spins.
template <typename Ready, typename Running>
bool wait_while_writer_runs(const Ready& ready, const Running& writer_running,
                            unsigned spins_per_query = 1) {
  for (unsigned spin = 1;; ++spin) {
    if (ready())
      return true;
    if (spin % spins_per_query == 0 && !writer_running())
      return ready();
  }
}

// `out` becomes src[0..count). std::vector zero-fills only growth past out's current size, so a
// Features kept from frame to frame (see Features::clear_keeping_descriptor_sizes) rarely pays
// for it.
template <typename T>
void copy_to_vector(const T* src, size_t count, std::vector<T>* out) {
  out->resize(count);
  copy_in_parallel(src, count * sizeof(T), out->data());
}

}  // namespace gpusift
