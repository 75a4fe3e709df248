// SPDX-License-Identifier: LGPL-2.1-or-later
// main() of the GStreamer suites that need a GPU: "skipped" for meson (exit 77) without one, a
// failure with a broken CUDA setup (gpu_presence.h).
#include <gst/gst.h>
#include <gtest/gtest.h>

#include "gpu_presence.h"
#include "gst_test_support.h"

int main(int argc, char** argv) {
  if (const int status = gpusift::test::gpu_suite_gate(); status != gpusift::test::kRunSuite)
    return status;
  gst_test::LogCounter::install();
  g_setenv("GST_TRACERS", "leaks", TRUE);
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  gst_deinit();
  return status;
}
