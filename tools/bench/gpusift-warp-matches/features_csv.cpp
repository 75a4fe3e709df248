// SPDX-License-Identifier: LGPL-2.1-or-later
#include "features_csv.h"

#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "parse_number.h"

namespace gpusift::tools {

namespace {

bool starts_with_number(const std::string& line) {
  return !line.empty() &&
         (std::isdigit(static_cast<unsigned char>(line[0])) || line[0] == '-' || line[0] == '.');
}

std::vector<float> parse_row(const std::string& line) {
  std::vector<float> values;
  std::stringstream cells(line);
  std::string cell;
  while (std::getline(cells, cell, ',')) {
    float value = 0;
    if (!parse_finite_float(cell, &value))
      return {};
    values.push_back(value);
  }
  return values;
}

}  // namespace

PointsAndDescriptors read_features_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot open " + path);
  PointsAndDescriptors result;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!starts_with_number(line))
      continue;
    const std::vector<float> values = parse_row(line);
    if (values.size() < 2 + static_cast<size_t>(kCsvDescriptorSize))
      throw std::runtime_error(path + ":" + std::to_string(number) +
                               ": expected x, y, ... and 128 descriptor values");
    result.points.emplace_back(values[0], values[1]);
    result.descriptors.insert(result.descriptors.end(), values.end() - kCsvDescriptorSize,
                              values.end());
  }
  return result;
}

}  // namespace gpusift::tools
