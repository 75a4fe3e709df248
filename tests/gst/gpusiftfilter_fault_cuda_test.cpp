// SPDX-License-Identifier: LGPL-2.1-or-later
// A CUDA kernel launch that fails in the middle of a stream (the kernels' test hook,
// GPUSIFT_TEST_FAIL_LAUNCH=N: the Nth frame of each extractor built while it is set): gpusiftfilter
// posts an error, the pipeline stops without a hang, and a new pipeline in the same process
// works, for both methods.
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "gst_test_support.h"

namespace gpusift::testing {
namespace {

constexpr int kFailingFrame = 5;

struct CountedPipeline {
  GstElement* pipeline = nullptr;
  std::atomic<int> frames{0};
  std::atomic<int> frames_with_keypoints{0};

  CountedPipeline(const std::string& method, int frames_to_send) {
    const std::string description =
        "videotestsrc num-buffers=" + std::to_string(frames_to_send) +
        " pattern=ball ! video/x-raw,format=NV12,width=640,height=480 ! "
        "gpusiftfilter name=f backend=cuda method=" +
        method + " ! fakesink name=sink sync=false signal-handoffs=true";
    pipeline = gst_parse_launch(description.c_str(), nullptr);
    GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    g_signal_connect(sink, "handoff", G_CALLBACK(&CountedPipeline::on_handoff), this);
    gst_object_unref(sink);
  }
  ~CountedPipeline() {
    EXPECT_EQ(gst_element_set_state(pipeline, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
    gst_object_unref(pipeline);
  }

  static void on_handoff(GstElement*, GstBuffer* buffer, GstPad*, gpointer self) {
    auto* p = static_cast<CountedPipeline*>(self);
    ++p->frames;
    const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(buffer);
    if (meta != nullptr && meta->n_keypoints > 0)
      ++p->frames_with_keypoints;
  }

  // EOS or the first error, or nullptr when the pipeline hangs.
  GstMessage* play_to_end() {
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstBus* bus = gst_element_get_bus(pipeline);
    GstMessage* end = gst_bus_timed_pop_filtered(
        bus, 60 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    gst_object_unref(bus);
    return end;
  }
};

class CudaLaunchFault : public ::testing::TestWithParam<const char*> {};

TEST_P(CudaLaunchFault, EndsTheStreamWithAnErrorAndTheNextPipelineWorks) {
  const int filters_before = gst_test::live_objects_named("GstGpusiftFilter");
  ASSERT_GE(filters_before, 0) << "the leaks tracer is not active";
  {
    g_setenv("GPUSIFT_TEST_FAIL_LAUNCH", std::to_string(kFailingFrame).c_str(), TRUE);
    CountedPipeline failing(GetParam(), 30);
    GstMessage* end = failing.play_to_end();
    g_unsetenv("GPUSIFT_TEST_FAIL_LAUNCH");  // read when an extractor is built
    ASSERT_NE(end, nullptr) << "no error and no EOS: the pipeline hangs";
    ASSERT_EQ(GST_MESSAGE_TYPE(end), GST_MESSAGE_ERROR);
    EXPECT_STREQ(GST_OBJECT_NAME(GST_MESSAGE_SRC(end)), "f");
    GError* error = nullptr;
    gchar* debug = nullptr;
    gst_message_parse_error(end, &error, &debug);
    EXPECT_TRUE(g_error_matches(error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED))
        << error->message;
    const std::string detail = debug ? debug : "";
    EXPECT_NE(detail.find("GPUSIFT_TEST_FAIL_LAUNCH"), std::string::npos) << detail;
    // The runtime's name for the refused launch differs between CUDA versions.
    EXPECT_NE(detail.find("failed: cudaError"), std::string::npos) << detail;
    g_clear_error(&error);
    g_free(debug);
    gst_message_unref(end);
    EXPECT_EQ(failing.frames.load(), kFailingFrame - 1) << "frames before the failing one";
  }
  {
    CountedPipeline next(GetParam(), 12);
    GstMessage* end = next.play_to_end();
    ASSERT_NE(end, nullptr) << "the next pipeline hangs";
    EXPECT_EQ(GST_MESSAGE_TYPE(end), GST_MESSAGE_EOS);
    gst_message_unref(end);
    EXPECT_EQ(next.frames.load(), 12);
    EXPECT_GT(next.frames_with_keypoints.load(), 0);
  }
  EXPECT_EQ(gst_test::live_objects_named("GstGpusiftFilter"), filters_before);
}

INSTANTIATE_TEST_SUITE_P(BothMethods, CudaLaunchFault, ::testing::Values("sift", "surf"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace gpusift::testing
