// SPDX-License-Identifier: LGPL-2.1-or-later
// main() of the GStreamer suites that need a GPU: "skipped" for meson (exit 77) without one.
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cstdio>

#include "gpusift/extractor.h"

int main(int argc, char** argv) {
  if (gpusift::cuda_device_count() == 0) {
    std::printf("SKIP: no CUDA device on this machine\n");
    return 77;
  }
  g_setenv("GST_TRACERS", "leaks", TRUE);
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  gst_deinit();
  return status;
}
