// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusiftfilter with memory:NVMM caps but buffers that cannot be read as NVMM frames: each is a
// clear error, never a crash or a leak. Built only with -Dnvmm (tools/scripts/ci/nvmm-stub-build.sh
// builds it against the test stand-in of nvbufsurface.h); exits 77 (skipped) if the plugin it loads
// offers no NVMM caps. Real NVMM frames need a Jetson: nothing here maps one.
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gtest/gtest.h>
#include <nvbufsurface.h>

#include <cstdio>
#include <functional>
#include <string>

#include "filter_in_flight_support.h"
#include "gst_test_support.h"

namespace gpusift::testing {
namespace {

constexpr char kNv12Caps[] =
    "video/x-raw(memory:NVMM),format=NV12,width=64,height=48,framerate=30/1";

// Pushes the buffer that `make` returns into the filter under NVMM caps; the error it posted.
// Nothing may outlive the harness: neither the element nor a reference to or a mapping of the
// buffer. (The leaks tracer is asked only while no buffer lives: listing a memory that a buffer
// holds breaks GStreamer 1.22's reference counting.)
std::string error_of_push(const std::function<GstBuffer*()>& make,
                          const std::string& properties = "backend=cpu") {
  const int filters_before = gst_test::live_objects_named("GstGpusiftFilter");
  GstBuffer* buffer = make();
  gst_buffer_ref(buffer);
  GstHarness* h = filter_harness(properties, kNv12Caps);
  EXPECT_EQ(gst_harness_push(h, buffer), GST_FLOW_ERROR);
  EXPECT_EQ(gst_harness_buffers_received(h), 0u);
  const std::string error = first_error(h);
  teardown_filter(h);
  EXPECT_EQ(GST_MINI_OBJECT_REFCOUNT_VALUE(buffer), 1);
  // A mapping left behind would hold the memory too.
  EXPECT_EQ(GST_MINI_OBJECT_REFCOUNT_VALUE(gst_buffer_peek_memory(buffer, 0)), 1);
  gst_buffer_unref(buffer);
  EXPECT_EQ(gst_test::live_objects_named("GstGpusiftFilter"), filters_before);
  return error;
}

TEST(GpusiftFilterNvmm, SystemMemorySmallerThanAnNvBufSurfaceIsAnError) {
  const std::string error =
      error_of_push([] { return gst_buffer_new_allocate(nullptr, 16, nullptr); });
  EXPECT_NE(error.find("Cannot read the memory:NVMM frame"), std::string::npos) << error;
  EXPECT_NE(error.find("holds 16 bytes"), std::string::npos) << error;
}

TEST(GpusiftFilterNvmm, ZeroedFrameOfSystemMemoryIsAnError) {
  const auto zeroed_frame = [] {
    GstBuffer* buffer = gst_buffer_new_allocate(nullptr, 64 * 48 * 3 / 2, nullptr);
    gst_buffer_memset(buffer, 0, 0, gst_buffer_get_size(buffer));
    return buffer;
  };
  const std::string error = error_of_push(zeroed_frame, "backend=cpu max-frames-in-flight=2");
  EXPECT_NE(error.find("not an NvBufSurface of one frame"), std::string::npos) << error;
}

TEST(GpusiftFilterNvmm, AnNvBufSurfaceOnTheCpuBackendIsAnError) {
  NvBufSurfaceParams params{};
  params.width = 64;
  params.height = 48;
  params.colorFormat = NVBUF_COLOR_FORMAT_NV12;
  params.layout = NVBUF_LAYOUT_PITCH;
  NvBufSurface surface{};
  surface.batchSize = 1;
  surface.numFilled = 1;
  surface.surfaceList = &params;
  const std::string error = error_of_push([&surface] {
    return gst_buffer_new_wrapped_full(GST_MEMORY_FLAG_READONLY, &surface, sizeof(surface), 0,
                                       sizeof(surface), nullptr, nullptr);
  });
  EXPECT_NE(error.find("runs on the CPU backend"), std::string::npos) << error;
}

// What the plugin offers: the test is moot without it.
bool filter_takes_nvmm() {
  GstElementFactory* factory = gst_element_factory_find("gpusiftfilter");
  if (!factory)
    return false;
  GstCaps* nvmm = gst_caps_from_string(
      "video/x-raw(memory:NVMM),format={NV12,RGBA,GRAY8},width=64,height=48,framerate=30/1");
  bool takes = true;
  for (const GList* t = gst_element_factory_get_static_pad_templates(factory); t; t = t->next) {
    GstCaps* caps = gst_static_caps_get(&static_cast<GstStaticPadTemplate*>(t->data)->static_caps);
    takes = takes && gst_caps_is_subset(nvmm, caps);
    gst_caps_unref(caps);
  }
  gst_caps_unref(nvmm);
  gst_object_unref(factory);
  return takes;
}

}  // namespace
}  // namespace gpusift::testing

int main(int argc, char** argv) {
  gst_test::LogCounter::install();
  g_setenv("GST_TRACERS", "leaks", TRUE);
  gst_init(&argc, &argv);
  if (!gpusift::testing::filter_takes_nvmm()) {
    std::printf("SKIP: the gpusiftfilter loaded offers no memory:NVMM caps\n");
    gst_deinit();
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  gst_deinit();
  return status;
}
