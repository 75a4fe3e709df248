// SPDX-License-Identifier: LGPL-2.1-or-later
#include "machine_info.h"

#include <ctime>
#include <fstream>
#include <string>

namespace gpusift::tools {

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) != 0)
      continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos)
      break;
    const size_t start = line.find_first_not_of(" \t", colon + 1);
    if (start != std::string::npos)
      return line.substr(start);
  }
  return "unknown CPU";
}

std::string current_utc_time() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &utc);
  return text;
}

}  // namespace gpusift::tools
