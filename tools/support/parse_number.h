// SPDX-License-Identifier: LGPL-2.1-or-later
// Strict number parsing for command-line values: the whole text must be one number in range.
#pragma once

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace gpusift::tools {

// strtol and strtod skip leading white space, which the whole-text rule does not allow.
inline bool starts_a_number(const std::string& text) {
  return !text.empty() && !std::isspace(static_cast<unsigned char>(text[0]));
}

inline bool parse_int(const std::string& text, int min_value, int max_value, int* value) {
  if (!starts_a_number(text))
    return false;
  char* end = nullptr;
  errno = 0;
  const long parsed = std::strtol(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || parsed < min_value || parsed > max_value)
    return false;
  *value = static_cast<int>(parsed);
  return true;
}

inline bool parse_finite_float(const std::string& text, float* value) {
  if (!starts_a_number(text))
    return false;
  char* end = nullptr;
  errno = 0;
  const float parsed = std::strtof(text.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(parsed))
    return false;
  *value = parsed;
  return true;
}

inline bool parse_finite_double(const std::string& text, double* value) {
  if (!starts_a_number(text))
    return false;
  char* end = nullptr;
  errno = 0;
  const double parsed = std::strtod(text.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(parsed))
    return false;
  *value = parsed;
  return true;
}

}  // namespace gpusift::tools
