#include "test_images.h"

#include <gtest/gtest.h>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#ifndef GPUSIFT_TEST_DATA_DIR
#error "GPUSIFT_TEST_DATA_DIR must name the folder of the test images"
#endif

namespace gpusift::testing {

const std::vector<std::string>& parity_image_names() {
  static const std::vector<std::string> names = {"astronaut.png", "coffee.png", "chelsea.png",
                                                 "camera.png", "brick.png", "coins.png"};
  return names;
}

cv::Mat load_gray(const std::string& name) {
  const std::string path = std::string(GPUSIFT_TEST_DATA_DIR) + "/" + name;
  cv::Mat gray = cv::imread(path, cv::IMREAD_GRAYSCALE);
  if (gray.empty())
    ADD_FAILURE() << "test image " << path
                  << " is missing: run tools/fetch-test-images.sh (the README's setup does)";
  return gray;
}

cv::Mat resized(const cv::Mat& gray, int width, int height) {
  cv::Mat out;
  const bool shrinking = width < gray.cols || height < gray.rows;
  cv::resize(gray, out, cv::Size(width, height), 0, 0,
             shrinking ? cv::INTER_AREA : cv::INTER_CUBIC);
  return out;
}

}  // namespace gpusift::testing
