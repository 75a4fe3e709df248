// SPDX-License-Identifier: LGPL-2.1-or-later
#include "test_images.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include <opencv2/imgproc.hpp>

#include "pnm_reader.h"

#ifndef GPUSIFT_TEST_DATA_DIR
#error "GPUSIFT_TEST_DATA_DIR must name the folder of the test images"
#endif

namespace gpusift::testing {

const std::vector<std::string>& parity_image_names() {
  static const std::vector<std::string> names = {"astronaut.png", "coffee.png", "chelsea.png",
                                                 "camera.png",    "brick.png",  "coins.png"};
  return names;
}

std::string test_data_path(const std::string& name) {
  const char* override_dir = std::getenv("GPUSIFT_TEST_DATA_DIR");
  return std::string(override_dir ? override_dir : GPUSIFT_TEST_DATA_DIR) + "/" + name;
}

cv::Mat load_bgr(const std::string& name) {
  const std::string path = test_data_path(name.substr(0, name.rfind('.')) + ".pnm");
  cv::Mat image = read_pnm(path);
  if (image.empty())
    ADD_FAILURE()
        << "test image " << path
        << " is missing: run tools/scripts/fetch-test-images.sh (the README's setup does)";
  return image;
}

cv::Mat load_gray(const std::string& name) {
  cv::Mat image = load_bgr(name);
  if (image.channels() == 3)
    cv::cvtColor(image, image, cv::COLOR_BGR2GRAY);
  return image;
}

cv::Mat resized(const cv::Mat& gray, int width, int height) {
  cv::Mat out;
  const bool shrinking = width < gray.cols || height < gray.rows;
  cv::resize(gray, out, cv::Size(width, height), 0, 0,
             shrinking ? cv::INTER_AREA : cv::INTER_CUBIC);
  return out;
}

}  // namespace gpusift::testing
