// SPDX-License-Identifier: LGPL-2.1-or-later
// What meson gives the CLI tests: the gpusift-extract executable and the folder of the test
// images; and the exit status of every CLI for bad input.
#pragma once

#include <string>

#ifndef GPUSIFT_EXTRACT_PATH
#error "GPUSIFT_EXTRACT_PATH must name the gpusift-extract executable"
#endif
#ifndef GPUSIFT_CLI_TEST_DATA_DIR
#error "GPUSIFT_CLI_TEST_DATA_DIR must name the folder of the test images"
#endif

namespace gpusift::testing {

inline constexpr int kFailureStatus = 2;
inline const std::string kDataDir = GPUSIFT_CLI_TEST_DATA_DIR;

}  // namespace gpusift::testing
