// SPDX-License-Identifier: LGPL-2.1-or-later
// main() of the GStreamer suites: the leaks tracer is switched on before gst_init so that the
// suites can ask it which objects are still alive, and GLib warnings and criticals are counted.
#include <gst/gst.h>
#include <gtest/gtest.h>

#include "gst_test_support.h"

int main(int argc, char** argv) {
  gst_test::LogCounter::install();
  g_setenv("GST_TRACERS", "leaks", TRUE);
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  gst_deinit();
  return status;
}
