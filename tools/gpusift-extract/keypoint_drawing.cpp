#include "keypoint_drawing.h"

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

}  // namespace

void write_keypoint_drawing(const std::string& path, const cv::Mat& gray,
                            const Features& features) {
  cv::Mat drawing;
  cv::drawKeypoints(gray, to_cv_keypoints(features), drawing, cv::Scalar::all(-1),
                    cv::DrawMatchesFlags::DRAW_RICH_KEYPOINTS);
  bool written = false;
  std::string reason = "the encoder failed or the folder is not writable";
  try {
    written = cv::imwrite(path, drawing);
  } catch (const cv::Exception& e) {
    reason = e.err;  // e.what() spans several lines; err is OpenCV's own one-line reason
  }
  if (!written)
    throw std::runtime_error("cannot write " + path + ": " + reason);
}

}  // namespace gpusift::tools
