/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Vectors that leave in GBytes (a meta's descriptors) and come back when the GBytes is freed, so
// that a frame's descriptors are copied once, from the extractor's pinned memory into a vector,
// and the meta takes that vector instead of a second copy. A returned vector keeps its size: the
// next frame's rows overwrite it without the zero-filling that growing an empty one costs.
#pragma once

#include <glib.h>

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace gpusift::gst {

template <typename T>
class RecycledVectors {
 public:
  // A vector that came back, or an empty one.
  std::vector<T> take() {
    std::lock_guard<std::mutex> hold(shared_->lock);
    if (shared_->idle.empty())
      return {};
    std::vector<T> vector = std::move(shared_->idle.back());
    shared_->idle.pop_back();
    return vector;
  }

  // GBytes over the vector's elements, owning it; freed (on any thread, after this object if
  // buffers outlive the element), it gives the vector back.
  GBytes* wrap(std::vector<T>&& vector) {
    auto* holder = new Holder{std::move(vector), shared_};
    return g_bytes_new_with_free_func(holder->vector.data(), holder->vector.size() * sizeof(T),
                                      &RecycledVectors::give_back, holder);
  }

 private:
  // Enough for the frames between the element and the metas' last reader; more are dropped.
  static constexpr size_t kMaxIdle = 8;

  struct Shared {
    std::mutex lock;
    std::vector<std::vector<T>> idle;
  };
  struct Holder {
    std::vector<T> vector;
    std::shared_ptr<Shared> shared;
  };

  static void give_back(gpointer data) {
    std::unique_ptr<Holder> holder(static_cast<Holder*>(data));
    std::lock_guard<std::mutex> hold(holder->shared->lock);
    if (holder->shared->idle.size() < kMaxIdle)
      holder->shared->idle.push_back(std::move(holder->vector));
  }

  std::shared_ptr<Shared> shared_ = std::make_shared<Shared>();
};

}  // namespace gpusift::gst
