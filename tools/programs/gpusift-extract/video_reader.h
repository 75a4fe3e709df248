// SPDX-License-Identifier: LGPL-2.1-or-later
// Gray frames and their timestamps from any video OpenCV's backends decode.
#pragma once

#include <cstdint>
#include <memory>
#include <opencv2/core.hpp>
#include <opencv2/videoio.hpp>
#include <string>

namespace gpusift::tools {

class GrayVideoReader {
 public:
  // The reader of `path`, or nullptr when no backend opens it or it yields no frame.
  static std::unique_ptr<GrayVideoReader> open(const std::string& path);

  // The next frame as 8-bit gray (OpenCV's BGR-to-gray) and its timestamp in nanoseconds from
  // the decoder (gpusift::kFeaturesNoPts when it has none); false after the last frame.
  bool read(cv::Mat* gray, uint64_t* pts_ns);

  // The frame count the container states, 0 when it states none (a stream, some formats).
  int64_t stated_frame_count() const;

 private:
  GrayVideoReader() = default;
  bool decode_next();

  cv::VideoCapture capture_;
  cv::Mat pending_;  // the decoded frame read() returns next, as gray
  uint64_t pending_pts_ = 0;
  bool has_pending_ = false;
};

}  // namespace gpusift::tools
