// SPDX-License-Identifier: LGPL-2.1-or-later
/* GstKeypointsObjectMeta: adding, corners, labels, validation, copies, and the transforms real
 * elements apply. */
#include <gst/check/gstharness.h>
#include <gst/keypoints/gstkeypointsobjectmeta.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <string>

#include "gst_test_support.h"

namespace {

/* A 200x100 reference turned a little, shrunk, tilted and shifted into a 640x480 frame. */
constexpr std::array<gdouble, 9> kHomography = {0.9,  -0.1, 120.0, 0.08, 0.85,
                                                60.0, 1e-4, -5e-5, 1.0};

std::array<double, 2> apply(const gdouble* m, double x, double y) {
  const double w = m[6] * x + m[7] * y + m[8];
  return {(m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w};
}

GstKeypointsObjectMeta* add_sample(GstBuffer* buffer, const char* label = "poster") {
  return gst_buffer_add_keypoints_object_meta(buffer, label, 640, 480, 200, 100, kHomography.data(),
                                              80, 64);
}

TEST(KeypointObjectMeta, AddKeepsTheFieldsAndProjectsTheCorners) {
  GstBuffer* buffer = gst_buffer_new();
  GstKeypointsObjectMeta* added = add_sample(buffer);
  ASSERT_NE(added, nullptr);
  EXPECT_EQ(gst_buffer_get_keypoints_object_meta(buffer), added);
  EXPECT_STREQ(gst_keypoints_object_meta_get_label(added), "poster");
  EXPECT_EQ(added->width, 640u);
  EXPECT_EQ(added->height, 480u);
  EXPECT_EQ(added->reference_width, 200u);
  EXPECT_EQ(added->reference_height, 100u);
  EXPECT_EQ(added->matches, 80u);
  EXPECT_EQ(added->inliers, 64u);
  for (int i = 0; i < 9; i++) {
    EXPECT_EQ(added->homography[i], kHomography[i]);
  }
  /* The corner pixel centres, clockwise from the top-left. */
  const std::array<std::array<double, 2>, 4> corners = {{{0, 0}, {199, 0}, {199, 99}, {0, 99}}};
  for (int c = 0; c < 4; c++) {
    const auto expected = apply(kHomography.data(), corners[c][0], corners[c][1]);
    EXPECT_DOUBLE_EQ(added->corners[2 * c], expected[0]) << c;
    EXPECT_DOUBLE_EQ(added->corners[2 * c + 1], expected[1]) << c;
  }
  gst_buffer_unref(buffer);
}

TEST(KeypointObjectMeta, ApiAndInfoAreRegisteredWithVideoTags) {
  // The names registered before the rename, kept: they are the meta's identity at run time.
  EXPECT_STREQ(g_type_name(GST_KEYPOINTS_OBJECT_META_API_TYPE), "GstKeypointObjectMetaAPI");
  EXPECT_STREQ(g_type_name(GST_KEYPOINTS_OBJECT_META_INFO->type), "GstKeypointObjectMeta");
  for (const char* tag :
       {GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_SIZE_STR, GST_META_TAG_VIDEO_ORIENTATION_STR}) {
    EXPECT_TRUE(
        gst_meta_api_type_has_tag(GST_KEYPOINTS_OBJECT_META_API_TYPE, g_quark_from_string(tag)))
        << tag;
  }
}

TEST(KeypointObjectMeta, SeveralObjectsAreFoundByLabel) {
  GstBuffer* buffer = gst_buffer_new();
  GstKeypointsObjectMeta* poster = add_sample(buffer, "poster");
  GstKeypointsObjectMeta* book = add_sample(buffer, "book");
  EXPECT_EQ(gst_buffer_get_keypoints_object_meta(buffer), poster);
  EXPECT_EQ(gst_buffer_get_keypoints_object_meta_by_label(buffer, "poster"), poster);
  EXPECT_EQ(gst_buffer_get_keypoints_object_meta_by_label(buffer, "book"), book);
  EXPECT_EQ(gst_buffer_get_keypoints_object_meta_by_label(buffer, "never-used-label-x"), nullptr);
  EXPECT_EQ(book->label, g_quark_from_string("book"));
  gst_buffer_unref(buffer);
}

TEST(KeypointObjectMeta, InvalidArgumentsAreRefusedWithACritical) {
  GstBuffer* buffer = gst_buffer_new();
  const gdouble* h = kHomography.data();
  const int criticals_before = gst_test::LogCounter::criticals();
  EXPECT_EQ(gst_buffer_add_keypoints_object_meta(nullptr, "a", 640, 480, 200, 100, h, 8, 4),
            nullptr);
  EXPECT_EQ(gst_buffer_add_keypoints_object_meta(buffer, nullptr, 640, 480, 200, 100, h, 8, 4),
            nullptr);
  EXPECT_EQ(gst_buffer_add_keypoints_object_meta(buffer, "", 640, 480, 200, 100, h, 8, 4), nullptr);
  EXPECT_EQ(gst_buffer_add_keypoints_object_meta(buffer, "a", 0, 480, 200, 100, h, 8, 4), nullptr);
  EXPECT_EQ(gst_buffer_add_keypoints_object_meta(buffer, "a", 640, 480, 200, 0, h, 8, 4), nullptr);
  EXPECT_EQ(gst_buffer_add_keypoints_object_meta(buffer, "a", 640, 480, 200, 100, nullptr, 8, 4),
            nullptr);
  EXPECT_EQ(gst_buffer_add_keypoints_object_meta(buffer, "a", 640, 480, 200, 100, h, 4, 8),
            nullptr);
  std::array<gdouble, 9> bad = kHomography;
  bad[4] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(gst_buffer_add_keypoints_object_meta(buffer, "a", 640, 480, 200, 100, bad.data(), 8, 4),
            nullptr);
  /* The top-right corner of a 129 pixel wide reference on the horizon: w = 0 there. */
  const std::array<gdouble, 9> horizon = {1, 0, 0, 0, 1, 0, -1.0 / 128.0, 0, 1};
  EXPECT_EQ(
      gst_buffer_add_keypoints_object_meta(buffer, "a", 640, 480, 129, 100, horizon.data(), 8, 4),
      nullptr);
  EXPECT_NE(gst_test::LogCounter::last_critical().find("does not map every corner of the 129x100 "
                                                       "reference to a finite point"),
            std::string::npos)
      << gst_test::LogCounter::last_critical();
  /* All zero: the critical names the homography, not an internal assertion. */
  const std::array<gdouble, 9> zero = {};
  EXPECT_EQ(
      gst_buffer_add_keypoints_object_meta(buffer, "a", 640, 480, 200, 100, zero.data(), 8, 4),
      nullptr);
  EXPECT_NE(gst_test::LogCounter::last_critical().find("the homography {0 0 0; 0 0 0; 0 0 0}"),
            std::string::npos)
      << gst_test::LogCounter::last_critical();
  EXPECT_EQ(gst_test::LogCounter::last_critical().find("meta != NULL"), std::string::npos);
  EXPECT_EQ(gst_test::LogCounter::criticals() - criticals_before, 10);
  EXPECT_EQ(gst_buffer_get_keypoints_object_meta(buffer), nullptr);
  gst_buffer_unref(buffer);
}

TEST(KeypointObjectMeta, BufferCopiesKeepTheObject) {
  GstBuffer* buffer = gst_test::make_video_buffer(GST_VIDEO_FORMAT_RGBA, 64, 48, 0);
  const GstKeypointsObjectMeta* original = add_sample(buffer);
  GstBuffer* copy = gst_buffer_copy(buffer);
  const GstKeypointsObjectMeta* copied = gst_buffer_get_keypoints_object_meta(copy);
  ASSERT_NE(copied, nullptr);
  EXPECT_NE(copied, original);
  EXPECT_EQ(copied->label, original->label);
  EXPECT_EQ(copied->inliers, original->inliers);
  for (int i = 0; i < 8; i++) {
    EXPECT_EQ(copied->corners[i], original->corners[i]);
  }
  gst_buffer_unref(copy);
  gst_buffer_unref(buffer);
}

/* The scaled meta's corners are the original's times the scale, and its homography maps the
 * reference straight onto them. */
TEST(KeypointObjectMeta, ScaleTransformScalesTheFrameSideOnly) {
  GstBuffer* buffer = gst_buffer_new();
  const GstKeypointsObjectMeta* meta = add_sample(buffer);
  GstVideoInfo in_info = gst_test::video_info(GST_VIDEO_FORMAT_RGBA, 640, 480);
  GstVideoInfo out_info = gst_test::video_info(GST_VIDEO_FORMAT_RGBA, 320, 120);
  GstVideoMetaTransform scale = {&in_info, &out_info};
  GstBuffer* scaled_buffer = gst_buffer_new();
  ASSERT_TRUE(meta->meta.info->transform_func(scaled_buffer, (GstMeta*)meta, buffer,
                                              gst_video_meta_transform_scale_get_quark(), &scale));
  const GstKeypointsObjectMeta* scaled = gst_buffer_get_keypoints_object_meta(scaled_buffer);
  ASSERT_NE(scaled, nullptr);
  EXPECT_EQ(scaled->width, 320u);
  EXPECT_EQ(scaled->height, 120u);
  EXPECT_EQ(scaled->reference_width, 200u);
  for (int c = 0; c < 4; c++) {
    EXPECT_NEAR(scaled->corners[2 * c], meta->corners[2 * c] * 0.5, 1e-9);
    EXPECT_NEAR(scaled->corners[2 * c + 1], meta->corners[2 * c + 1] * 0.25, 1e-9);
  }
  const auto inside = apply(scaled->homography, 50, 50);
  const auto original = apply(meta->homography, 50, 50);
  EXPECT_NEAR(inside[0], original[0] * 0.5, 1e-9);
  EXPECT_NEAR(inside[1], original[1] * 0.25, 1e-9);

  GstBuffer* dropped = gst_buffer_new();
  EXPECT_FALSE(meta->meta.info->transform_func(
      dropped, (GstMeta*)meta, buffer, g_quark_from_static_string("gpusift-test-rotate"), nullptr));
  EXPECT_EQ(gst_buffer_get_keypoints_object_meta(dropped), nullptr);
  gst_buffer_unref(dropped);
  gst_buffer_unref(scaled_buffer);
  gst_buffer_unref(buffer);
}

GstBuffer* run_through(const char* pipeline) {
  GstHarness* harness = gst_harness_new_parse(pipeline);
  gst_harness_set_src_caps_str(harness,
                               gst_test::caps_string(GST_VIDEO_FORMAT_RGBA, 640, 480).c_str());
  GstBuffer* input = gst_test::make_video_buffer(GST_VIDEO_FORMAT_RGBA, 640, 480, 0x80);
  add_sample(input);
  EXPECT_EQ(gst_harness_push(harness, input), GST_FLOW_OK);
  GstBuffer* output = gst_harness_pull(harness);
  gst_harness_teardown(harness);
  return output;
}

TEST(KeypointObjectMetaPipeline, VideoscaleScalesVideoconvertKeepsVideoflipDrops) {
  GstBuffer* scaled = run_through("videoscale ! capsfilter caps=video/x-raw,width=320,height=240");
  ASSERT_NE(scaled, nullptr);
  const GstKeypointsObjectMeta* meta = gst_buffer_get_keypoints_object_meta(scaled);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->width, 320u);
  const auto expected = apply(kHomography.data(), 199, 99);
  EXPECT_NEAR(meta->corners[4], expected[0] / 2, 1e-9);
  EXPECT_NEAR(meta->corners[5], expected[1] / 2, 1e-9);
  gst_buffer_unref(scaled);

  GstBuffer* converted = run_through("videoconvert ! capsfilter caps=video/x-raw,format=I420");
  ASSERT_NE(converted, nullptr);
  EXPECT_NE(gst_buffer_get_keypoints_object_meta(converted), nullptr);
  gst_buffer_unref(converted);

  GstBuffer* flipped = run_through("videoflip video-direction=horiz");
  ASSERT_NE(flipped, nullptr);
  EXPECT_EQ(gst_buffer_get_keypoints_object_meta(flipped), nullptr);
  gst_buffer_unref(flipped);
}

}  // namespace

int main(int argc, char** argv) {
  gst_test::LogCounter::install();
  gst_init(&argc, &argv);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
