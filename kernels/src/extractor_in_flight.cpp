#include <utility>

#include "gpusift/error.h"
#include "gpusift/extractor.h"

namespace gpusift {

void Extractor::submit(const FrameView& frame) {
  if (in_flight_ >= max_in_flight())
    throw Error(ErrorCode::kInvalidArgument, "too many frames in flight");
  try {
    extract(frame, &held_);
  } catch (...) {
    cancel();
    throw;
  }
  in_flight_ = 1;
}

void Extractor::collect(Features* out) {
  if (in_flight_ == 0)
    throw Error(ErrorCode::kInvalidArgument, "no frame in flight");
  std::swap(*out, held_);
  in_flight_ = 0;
}

void Extractor::cancel() {
  held_.clear();
  in_flight_ = 0;
}

}  // namespace gpusift
