// SPDX-License-Identifier: LGPL-2.1-or-later
// What the benchmark header line says about the machine and the moment.
#pragma once

#include <string>

namespace gpusift::tools {

// /proc/cpuinfo's first "model name", or "unknown CPU".
std::string cpu_model_name();
// "YYYY-MM-DD HH:MM UTC".
std::string current_utc_time();

}  // namespace gpusift::tools
