// SPDX-License-Identifier: LGPL-2.1-or-later
#include "pnm_reader.h"

#include <fstream>

#include <opencv2/imgproc.hpp>

namespace gpusift::testing {

namespace {

// Next header number, skipping white space and comments.
bool read_header_number(std::istream& in, int* value) {
  for (;;) {
    const int c = in.peek();
    if (c == '#') {
      std::string comment;
      std::getline(in, comment);
    } else if (std::isspace(c)) {
      in.get();
    } else {
      break;
    }
  }
  return static_cast<bool>(in >> *value);
}

}  // namespace

cv::Mat read_pnm(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string magic;
  if (!(in >> magic) || (magic != "P5" && magic != "P6"))
    return cv::Mat();
  int width = 0, height = 0, max_value = 0;
  if (!read_header_number(in, &width) || !read_header_number(in, &height) ||
      !read_header_number(in, &max_value) || max_value != 255 || width <= 0 || height <= 0)
    return cv::Mat();
  in.get();  // the single white-space byte before the pixels
  const int channels = magic == "P5" ? 1 : 3;
  cv::Mat image(height, width, CV_8UC(channels));
  in.read(reinterpret_cast<char*>(image.data),
          static_cast<std::streamsize>(image.total()) * channels);
  if (!in)
    return cv::Mat();
  if (channels == 3)
    cv::cvtColor(image, image, cv::COLOR_RGB2BGR);
  return image;
}

}  // namespace gpusift::testing
