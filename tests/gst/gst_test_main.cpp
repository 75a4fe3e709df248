// main() of the GStreamer suites: the leaks tracer is switched on before gst_init so that the
// suites can ask it which objects are still alive.
#include <gst/gst.h>
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  g_setenv("GST_TRACERS", "leaks", TRUE);
  gst_init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  gst_deinit();
  return status;
}
