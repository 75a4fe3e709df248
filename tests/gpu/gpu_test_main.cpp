// SPDX-License-Identifier: LGPL-2.1-or-later
// main() of the CUDA suites: without a GPU they report "skipped" to meson (exit 77) instead of
// passing with nothing tested; with a broken CUDA setup they fail (gpu_presence.h).
#include <gtest/gtest.h>

#include "gpu_presence.h"

int main(int argc, char** argv) {
  if (const int status = gpusift::test::gpu_suite_gate(); status != gpusift::test::kRunSuite)
    return status;
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
