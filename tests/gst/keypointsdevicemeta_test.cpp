// SPDX-License-Identifier: LGPL-2.1-or-later
/* GstKeypointsDeviceMeta, the plugin-private meta of device descriptor rows: it shares its memory
 * through copies and scales, refuses bad arguments, and the request event that asks for it. Any
 * GstBuffer stands in for the CUDA memory and any GstObject for the context here. */
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include "gst_test_support.h"
#include "keypoints/gstkeypointsdevicemeta.h"

namespace {

class DeviceMeta : public ::testing::Test {
 protected:
  void SetUp() override {
    memory_ = gst_buffer_new_allocate(nullptr, 4096, nullptr);
    context_ = GST_OBJECT(gst_object_ref_sink(gst_bin_new("context")));
  }
  void TearDown() override {
    gst_buffer_unref(memory_);
    gst_object_unref(context_);
  }
  GstBuffer* memory_ = nullptr;
  GstObject* context_ = nullptr;
};

TEST_F(DeviceMeta, CopiesAndScalesShareTheRowsAndTheContext) {
  GstBuffer* buffer = gst_buffer_new();
  const GstKeypointsDeviceMeta* meta =
      gst_buffer_add_keypoints_device_meta(buffer, memory_, context_, 8, 512);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(gst_buffer_get_keypoints_device_meta(buffer), meta);
  EXPECT_EQ(meta->memory, memory_);
  EXPECT_EQ(meta->context, context_);

  GstBuffer* copy = gst_buffer_copy(buffer);
  const GstKeypointsDeviceMeta* copied = gst_buffer_get_keypoints_device_meta(copy);
  ASSERT_NE(copied, nullptr);
  EXPECT_EQ(copied->memory, memory_);
  EXPECT_EQ(copied->n_rows, 8u);
  EXPECT_EQ(copied->row_bytes, 512u);

  GstVideoInfo in = gst_test::video_info(GST_VIDEO_FORMAT_GRAY8, 640, 480);
  GstVideoInfo out = gst_test::video_info(GST_VIDEO_FORMAT_GRAY8, 320, 240);
  GstVideoMetaTransform scale = {&in, &out};
  GstBuffer* scaled = gst_buffer_new();
  ASSERT_TRUE(meta->meta.info->transform_func(scaled, (GstMeta*)meta, buffer,
                                              gst_video_meta_transform_scale_get_quark(), &scale));
  EXPECT_EQ(gst_buffer_get_keypoints_device_meta(scaled)->memory, memory_);
  GstBuffer* rotated = gst_buffer_new();
  EXPECT_FALSE(meta->meta.info->transform_func(
      rotated, (GstMeta*)meta, buffer, g_quark_from_static_string("gpusift-test-rotate"), nullptr));

  /* Every meta holds its own references. */
  gst_buffer_unref(buffer);
  gst_buffer_unref(copy);
  gst_buffer_unref(scaled);
  gst_buffer_unref(rotated);
  EXPECT_EQ(GST_MINI_OBJECT_REFCOUNT_VALUE(memory_), 1);
  EXPECT_EQ(GST_OBJECT_REFCOUNT_VALUE(context_), 1);
}

TEST_F(DeviceMeta, RefusesRowsThatDoNotFitAndMissingObjects) {
  const int before = gst_test::LogCounter::criticals();
  GstBuffer* buffer = gst_buffer_new();
  EXPECT_EQ(gst_buffer_add_keypoints_device_meta(buffer, memory_, context_, 9, 512), nullptr);
  EXPECT_EQ(gst_buffer_add_keypoints_device_meta(buffer, memory_, context_, 1, 0), nullptr);
  EXPECT_EQ(gst_buffer_add_keypoints_device_meta(buffer, nullptr, context_, 1, 8), nullptr);
  EXPECT_EQ(gst_buffer_add_keypoints_device_meta(buffer, memory_, nullptr, 1, 8), nullptr);
  EXPECT_EQ(gst_buffer_add_keypoints_device_meta(buffer, memory_, context_, G_MAXUINT, G_MAXUINT),
            nullptr);
  EXPECT_EQ(gst_test::LogCounter::criticals() - before, 5);
  EXPECT_EQ(gst_buffer_get_keypoints_device_meta(buffer), nullptr);
  gst_buffer_unref(buffer);
}

TEST(DeviceRequest, IsACustomUpstreamEventOnlyItRecognises) {
  GstEvent* request = gst_keypoints_device_request_new();
  EXPECT_EQ(GST_EVENT_TYPE(request), GST_EVENT_CUSTOM_UPSTREAM);
  EXPECT_TRUE(gst_keypoints_device_request_is(request));
  GstEvent* other =
      gst_event_new_custom(GST_EVENT_CUSTOM_UPSTREAM, gst_structure_new_empty("something-else"));
  EXPECT_FALSE(gst_keypoints_device_request_is(other));
  GstEvent* flush = gst_event_new_flush_start();
  EXPECT_FALSE(gst_keypoints_device_request_is(flush));
  gst_event_unref(request);
  gst_event_unref(other);
  gst_event_unref(flush);
}

}  // namespace

int main(int argc, char** argv) {
  gst_test::LogCounter::install();
  gst_init(&argc, &argv);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
