// SPDX-License-Identifier: LGPL-2.1-or-later
// main() of the CUDA suites: without a usable GPU they report "skipped" to meson (exit 77)
// instead of passing with nothing tested.
#include <gtest/gtest.h>

#include <cstdio>

#include "gpusift/extractor.h"

int main(int argc, char** argv) {
  if (gpusift::cuda_device_count() == 0) {
    std::printf("SKIP: no CUDA device on this machine\n");
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
