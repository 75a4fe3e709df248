// SPDX-License-Identifier: LGPL-2.1-or-later
#include "keypoint_drawing.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <opencv2/features2d.hpp>
#include <opencv2/imgcodecs.hpp>
#include <stdexcept>
#include <vector>

namespace gpusift::tools {

namespace {

std::vector<cv::KeyPoint> to_cv_keypoints(const Features& features) {
  std::vector<cv::KeyPoint> keypoints;
  keypoints.reserve(features.keypoints.size());
  for (const Keypoint& k : features.keypoints)
    keypoints.emplace_back(k.x, k.y, k.size, k.angle, k.response, k.octave, k.class_id);
  return keypoints;
}

[[noreturn]] void fail(const std::string& path, int error_number) {
  throw std::runtime_error("cannot write " + path + ": " + std::strerror(error_number));
}

void write_file(const std::string& path, const std::vector<uchar>& bytes) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr)
    fail(path, errno);
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  const int write_errno = errno;
  // The close flushes the last buffered block, where a full disk shows.
  if (std::fclose(file) != 0)
    fail(path, errno);
  if (!written)
    fail(path, write_errno != 0 ? write_errno : EIO);
}

}  // namespace

void write_keypoint_drawing(const std::string& path, const cv::Mat& gray,
                            const Features& features) {
  cv::Mat drawing;
  cv::drawKeypoints(gray, to_cv_keypoints(features), drawing, cv::Scalar::all(-1),
                    cv::DrawMatchesFlags::DRAW_RICH_KEYPOINTS);
  // Encoded in memory and written here: cv::imwrite prints libpng's write errors on stderr and
  // loses errno, so a full disk would read "encoder failed" after a second stderr line.
  std::vector<uchar> encoded;
  const size_t dot = path.find_last_of('.');
  try {
    if (dot == std::string::npos || !cv::imencode(path.substr(dot), drawing, encoded))
      throw std::runtime_error("cannot write " + path + ": the image encoder failed");
  } catch (const cv::Exception& e) {
    throw std::runtime_error("cannot write " + path + ": " + e.err);
  }
  write_file(path, encoded);
}

}  // namespace gpusift::tools
