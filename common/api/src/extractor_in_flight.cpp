// SPDX-License-Identifier: LGPL-2.1-or-later
#include <utility>

#include "gpusift/error.h"
#include "gpusift/extractor.h"

namespace gpusift {

void Extractor::submit(const FrameView& frame) {
  if (in_flight() >= max_in_flight())
    throw Error(ErrorCode::kInvalidArgument, "too many frames in flight");
  try {
    extract(frame, &held_);
  } catch (...) {
    cancel();
    throw;
  }
  holding_ = true;
}

void Extractor::collect(Features* out) {
  if (!holding_)
    throw Error(ErrorCode::kInvalidArgument, "no frame in flight");
  std::swap(*out, held_);
  holding_ = false;
}

void Extractor::cancel() {
  held_.clear();
  holding_ = false;
}

}  // namespace gpusift
