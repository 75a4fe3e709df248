// SPDX-License-Identifier: LGPL-2.1-or-later
#include "video_reader.h"

#include <cmath>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio/registry.hpp>

#include "gpusift/features_file.h"
#include "muted_stderr.h"

namespace gpusift::tools {

namespace {

uint64_t pts_from_milliseconds(double milliseconds) {
  if (!std::isfinite(milliseconds) || milliseconds < 0 || milliseconds > 1.8e13)
    return kFeaturesNoPts;
  return static_cast<uint64_t>(std::llround(milliseconds * 1e6));
}

cv::Mat to_gray(const cv::Mat& frame) {
  if (frame.channels() == 1)
    return frame;
  cv::Mat gray;
  cv::cvtColor(frame, gray, frame.channels() == 4 ? cv::COLOR_BGRA2GRAY : cv::COLOR_BGR2GRAY);
  return gray;
}

}  // namespace

int64_t GrayVideoReader::stated_frame_count() const {
  const double count = capture_.get(cv::CAP_PROP_FRAME_COUNT);
  return count > 0 && count < 1e12 ? static_cast<int64_t>(count) : 0;
}

std::unique_ptr<GrayVideoReader> GrayVideoReader::open(const std::string& path) {
  std::unique_ptr<GrayVideoReader> reader(new GrayVideoReader);
  {
    // FFmpeg prints its probing complaints about non-video files straight to stderr.
    const MutedStderr muted;
    // One file backend: CAP_ANY goes on to the camera backends with a name the file backends
    // refuse, and gphoto2 then probes every USB device (and leaks its list); and OpenCV's
    // GStreamer backend, given a file that is no media, posts a GStreamer critical from its
    // pipeline's thread after open() has returned. GStreamer only where FFmpeg is not built in.
    const int backend =
        cv::videoio_registry::hasBackend(cv::CAP_FFMPEG) ? cv::CAP_FFMPEG : cv::CAP_GSTREAMER;
    if (!reader->capture_.open(path, backend))
      return nullptr;
  }
  if (!reader->decode_next())
    return nullptr;
  return reader;
}

bool GrayVideoReader::decode_next() {
  cv::Mat frame;
  {
    const MutedStderr muted;
    has_pending_ = capture_.read(frame) && !frame.empty();
  }
  if (!has_pending_)
    return false;
  pending_ = to_gray(frame);
  pending_pts_ = pts_from_milliseconds(capture_.get(cv::CAP_PROP_POS_MSEC));
  return true;
}

bool GrayVideoReader::read(cv::Mat* gray, uint64_t* pts_ns) {
  if (!has_pending_)
    return false;
  *gray = pending_;
  *pts_ns = pending_pts_;
  decode_next();
  return true;
}

}  // namespace gpusift::tools
