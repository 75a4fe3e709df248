// SPDX-License-Identifier: LGPL-2.1-or-later
/* GstKeypointsMeta: adding, validation, copies, and the transforms real elements apply. */
#include <gst/check/gstharness.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gtest/gtest.h>
#include <gst/keypoints/gstkeypointsmeta-opencv.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gst_test_support.h"

namespace {

constexpr guint kDescriptorSize = 128;

std::vector<GstKeypoint> sample_keypoints() {
  return {
      {100.0f, 50.0f, 8.0f, 45.0f, 0.03f, 0x00ff01, -1},
      {320.5f, 240.25f, 20.0f, 270.0f, 0.05f, 0x010200, -1},
      {0.0f, 479.0f, 3.5f, -1.0f, 0.01f, 0, 1},
  };
}

std::vector<float> sample_descriptors(size_t n) {
  std::vector<float> values(n * kDescriptorSize);
  for (size_t i = 0; i < values.size(); i++) {
    values[i] = static_cast<float>(i % 251) / 251.0f;
  }
  return values;
}

/* Adds the sample keypoints with float descriptors in a 640x480 coordinate space. */
GstKeypointsMeta* add_sample_meta(GstBuffer* buffer) {
  const auto keypoints = sample_keypoints();
  const auto descriptors = sample_descriptors(keypoints.size());
  return gst_buffer_add_keypoints_meta(buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480,
                                       keypoints.data(), static_cast<guint>(keypoints.size()),
                                       GST_KEYPOINTS_DESCRIPTOR_FLOAT32, kDescriptorSize,
                                       descriptors.data());
}

guint count_keypoints_metas(GstBuffer* buffer) {
  guint count = 0;
  gpointer state = nullptr;
  while (gst_buffer_iterate_meta_filtered(buffer, &state, GST_KEYPOINTS_META_API_TYPE)) {
    count++;
  }
  return count;
}

void expect_same_keypoint(const GstKeypoint& actual, const GstKeypoint& expected) {
  EXPECT_EQ(actual.x, expected.x);
  EXPECT_EQ(actual.y, expected.y);
  EXPECT_EQ(actual.size, expected.size);
  EXPECT_EQ(actual.angle, expected.angle);
  EXPECT_EQ(actual.response, expected.response);
  EXPECT_EQ(actual.octave, expected.octave);
  EXPECT_EQ(actual.class_id, expected.class_id);
}

/* Pushes a 640x480 RGBA frame with the sample meta through a pipeline description. */
GstBuffer* run_through(const char* pipeline) {
  GstHarness* harness = gst_harness_new_parse(pipeline);
  gst_harness_set_src_caps_str(harness,
                               gst_test::caps_string(GST_VIDEO_FORMAT_RGBA, 640, 480).c_str());
  GstBuffer* input = gst_test::make_video_buffer(GST_VIDEO_FORMAT_RGBA, 640, 480, 0x80);
  add_sample_meta(input);
  EXPECT_EQ(gst_harness_push(harness, input), GST_FLOW_OK);
  GstBuffer* output = gst_harness_pull(harness);
  gst_harness_teardown(harness);
  return output;
}

TEST(KeypointsMeta, AddCopiesTheArraysAndGetFindsThem) {
  const auto keypoints = sample_keypoints();
  const auto descriptors = sample_descriptors(keypoints.size());
  GstBuffer* buffer = gst_buffer_new();
  GstKeypointsMeta* added = gst_buffer_add_keypoints_meta(
      buffer, GST_KEYPOINTS_METHOD_SURF, 640, 480, keypoints.data(),
      static_cast<guint>(keypoints.size()), GST_KEYPOINTS_DESCRIPTOR_FLOAT32, kDescriptorSize,
      descriptors.data());
  ASSERT_NE(added, nullptr);

  const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(buffer);
  ASSERT_EQ(meta, added);
  EXPECT_EQ(meta->method, GST_KEYPOINTS_METHOD_SURF);
  EXPECT_EQ(meta->width, 640u);
  EXPECT_EQ(meta->height, 480u);
  ASSERT_EQ(meta->n_keypoints, keypoints.size());
  EXPECT_NE(meta->keypoints, keypoints.data());
  for (size_t i = 0; i < keypoints.size(); i++) {
    expect_same_keypoint(meta->keypoints[i], keypoints[i]);
  }
  EXPECT_EQ(meta->descriptor_type, GST_KEYPOINTS_DESCRIPTOR_FLOAT32);
  EXPECT_EQ(meta->descriptor_size, kDescriptorSize);
  EXPECT_NE(meta->descriptors, descriptors.data());
  EXPECT_EQ(std::memcmp(meta->descriptors, descriptors.data(), descriptors.size() * sizeof(float)),
            0);
  gst_buffer_unref(buffer);
}

TEST(KeypointsMeta, ApiAndInfoAreRegisteredWithVideoTags) {
  EXPECT_STREQ(g_type_name(GST_KEYPOINTS_META_API_TYPE), "GstKeypointsMetaAPI");
  EXPECT_STREQ(g_type_name(GST_KEYPOINTS_META_INFO->type), "GstKeypointsMeta");
  EXPECT_EQ(GST_KEYPOINTS_META_INFO->api, GST_KEYPOINTS_META_API_TYPE);
  for (const char* tag :
       {GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_SIZE_STR, GST_META_TAG_VIDEO_ORIENTATION_STR}) {
    EXPECT_TRUE(gst_meta_api_type_has_tag(GST_KEYPOINTS_META_API_TYPE, g_quark_from_string(tag)))
        << tag;
  }
}

TEST(KeypointsMeta, ZeroKeypointsAreValidWithoutArrays) {
  GstBuffer* buffer = gst_buffer_new();
  const GstKeypointsMeta* meta =
      gst_buffer_add_keypoints_meta(buffer, GST_KEYPOINTS_METHOD_SIFT, 16, 16, nullptr, 0,
                                    GST_KEYPOINTS_DESCRIPTOR_FLOAT32, kDescriptorSize, nullptr);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->n_keypoints, 0u);
  EXPECT_EQ(meta->descriptor_size, kDescriptorSize);

  GBytes* empty = g_bytes_new(nullptr, 0);
  EXPECT_NE(
      gst_buffer_add_keypoints_meta_from_bytes(buffer, GST_KEYPOINTS_METHOD_SIFT, 16, 16, empty,
                                               GST_KEYPOINTS_DESCRIPTOR_UINT8, 32, nullptr),
      nullptr);
  g_bytes_unref(empty);
  gst_buffer_unref(buffer);
}

TEST(KeypointsMeta, FromBytesTakesReferencesWithoutCopying) {
  const auto keypoints = sample_keypoints();
  std::vector<guint8> descriptors(keypoints.size() * 32, 7);
  GBytes* keypoint_bytes = g_bytes_new(keypoints.data(), keypoints.size() * sizeof(GstKeypoint));
  GBytes* descriptor_bytes = g_bytes_new(descriptors.data(), descriptors.size());
  GstBuffer* buffer = gst_buffer_new();

  const GstKeypointsMeta* meta = gst_buffer_add_keypoints_meta_from_bytes(
      buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480, keypoint_bytes, GST_KEYPOINTS_DESCRIPTOR_UINT8,
      32, descriptor_bytes);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->n_keypoints, keypoints.size());
  EXPECT_EQ(meta->keypoints, g_bytes_get_data(keypoint_bytes, nullptr));
  EXPECT_EQ(meta->descriptors, g_bytes_get_data(descriptor_bytes, nullptr));

  /* The meta holds its own references: the caller's may go first. */
  g_bytes_unref(keypoint_bytes);
  g_bytes_unref(descriptor_bytes);
  expect_same_keypoint(meta->keypoints[1], keypoints[1]);
  EXPECT_EQ(static_cast<const guint8*>(meta->descriptors)[95], 7);
  gst_buffer_unref(buffer);
}

TEST(KeypointsMeta, InvalidArgumentsAreRefusedWithACritical) {
  const auto keypoints = sample_keypoints();
  const auto descriptors = sample_descriptors(keypoints.size());
  const guint n = static_cast<guint>(keypoints.size());
  GstBuffer* buffer = gst_buffer_new();
  const int criticals_before = gst_test::LogCounter::criticals();

  EXPECT_EQ(
      gst_buffer_add_keypoints_meta(nullptr, GST_KEYPOINTS_METHOD_SIFT, 640, 480, keypoints.data(),
                                    n, GST_KEYPOINTS_DESCRIPTOR_NONE, 0, nullptr),
      nullptr);
  EXPECT_EQ(
      gst_buffer_add_keypoints_meta(buffer, GST_KEYPOINTS_METHOD_SIFT, 0, 480, keypoints.data(), n,
                                    GST_KEYPOINTS_DESCRIPTOR_NONE, 0, nullptr),
      nullptr);
  EXPECT_EQ(gst_buffer_add_keypoints_meta(buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480, nullptr, n,
                                          GST_KEYPOINTS_DESCRIPTOR_NONE, 0, nullptr),
            nullptr);
  EXPECT_EQ(gst_buffer_add_keypoints_meta(buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480,
                                          keypoints.data(), n, GST_KEYPOINTS_DESCRIPTOR_NONE,
                                          kDescriptorSize, descriptors.data()),
            nullptr);
  EXPECT_EQ(
      gst_buffer_add_keypoints_meta(buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480, keypoints.data(),
                                    n, GST_KEYPOINTS_DESCRIPTOR_FLOAT32, 0, descriptors.data()),
      nullptr);
  EXPECT_EQ(
      gst_buffer_add_keypoints_meta(buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480, keypoints.data(),
                                    n, GST_KEYPOINTS_DESCRIPTOR_FLOAT32, kDescriptorSize, nullptr),
      nullptr);
  EXPECT_EQ(
      gst_buffer_add_keypoints_meta(buffer, static_cast<GstKeypointsMethod>(7), 640, 480,
                                    keypoints.data(), n, GST_KEYPOINTS_DESCRIPTOR_NONE, 0, nullptr),
      nullptr);

  GBytes* ragged = g_bytes_new(keypoints.data(), sizeof(GstKeypoint) + 1);
  EXPECT_EQ(
      gst_buffer_add_keypoints_meta_from_bytes(buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480, ragged,
                                               GST_KEYPOINTS_DESCRIPTOR_NONE, 0, nullptr),
      nullptr);
  g_bytes_unref(ragged);
  GBytes* keypoint_bytes = g_bytes_new(keypoints.data(), keypoints.size() * sizeof(GstKeypoint));
  GBytes* short_descriptors = g_bytes_new(descriptors.data(), 16);
  EXPECT_EQ(gst_buffer_add_keypoints_meta_from_bytes(
                buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480, keypoint_bytes,
                GST_KEYPOINTS_DESCRIPTOR_FLOAT32, kDescriptorSize, short_descriptors),
            nullptr);
  g_bytes_unref(short_descriptors);
  g_bytes_unref(keypoint_bytes);

  EXPECT_EQ(gst_test::LogCounter::criticals() - criticals_before, 9);
  EXPECT_EQ(gst_buffer_get_keypoints_meta(buffer), nullptr);
  gst_buffer_unref(buffer);
}

/* Sizes no caller can back: each is refused by a critical before any copy or allocation. The
 * static GBytes claim more bytes than they have, so a copy would read past them. */
TEST(KeypointsMeta, HostileSizesAreRefusedWithACriticalBeforeAnyAllocation) {
  const auto keypoints = sample_keypoints();
  const auto descriptors = sample_descriptors(keypoints.size());
  const guint n = static_cast<guint>(keypoints.size());
  GstBuffer* buffer = gst_buffer_new();
  const int criticals_before = gst_test::LogCounter::criticals();
  int refusals = 0;
  const auto expect_refused = [&](GstKeypointsMeta* meta, const char* what) {
    EXPECT_EQ(meta, nullptr) << what;
    ++refusals;
  };

  /* n_keypoints whose byte size overflows gsize on 32-bit hosts, or past the maximum. */
  for (guint count : {G_MAXUINT, G_MAXUINT / 28 + 1, guint{GST_KEYPOINTS_MAX_KEYPOINTS} + 1}) {
    expect_refused(
        gst_buffer_add_keypoints_meta(buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480, keypoints.data(),
                                      count, GST_KEYPOINTS_DESCRIPTOR_NONE, 0, nullptr),
        "huge n_keypoints");
  }
  /* Rows times count past gsize. */
  expect_refused(gst_buffer_add_keypoints_meta(
                     buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480, keypoints.data(), G_MAXUINT,
                     GST_KEYPOINTS_DESCRIPTOR_FLOAT32, G_MAXUINT, descriptors.data()),
                 "overflowing descriptor bytes");
  /* Descriptor sizes of 0 and huge. */
  for (GstKeypointsDescriptorType type :
       {GST_KEYPOINTS_DESCRIPTOR_FLOAT32, GST_KEYPOINTS_DESCRIPTOR_UINT8}) {
    for (guint size : {0u, guint{GST_KEYPOINTS_MAX_DESCRIPTOR_SIZE} + 1, 1u << 30, G_MAXUINT}) {
      expect_refused(
          gst_buffer_add_keypoints_meta(buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480,
                                        keypoints.data(), n, type, size, descriptors.data()),
          "descriptor size 0 or huge");
    }
  }
  /* NULL arrays with non-zero counts. */
  expect_refused(gst_buffer_add_keypoints_meta(buffer, GST_KEYPOINTS_METHOD_SURF, 640, 480, nullptr,
                                               1, GST_KEYPOINTS_DESCRIPTOR_NONE, 0, nullptr),
                 "NULL keypoints");
  expect_refused(
      gst_buffer_add_keypoints_meta(buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480, keypoints.data(),
                                    n, GST_KEYPOINTS_DESCRIPTOR_UINT8, kDescriptorSize, nullptr),
      "NULL descriptors");

  /* from_bytes with sizes that do not match. */
  static const guint8 scratch[64] = {0};
  GBytes* huge_keypoints =
      g_bytes_new_static(scratch, (gsize{GST_KEYPOINTS_MAX_KEYPOINTS} + 1) * sizeof(GstKeypoint));
  expect_refused(gst_buffer_add_keypoints_meta_from_bytes(
                     buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480, huge_keypoints,
                     GST_KEYPOINTS_DESCRIPTOR_NONE, 0, nullptr),
                 "from_bytes: too many keypoints");
  g_bytes_unref(huge_keypoints);
  GBytes* keypoint_bytes = g_bytes_new(keypoints.data(), keypoints.size() * sizeof(GstKeypoint));
  GBytes* exact = g_bytes_new(descriptors.data(), descriptors.size() * sizeof(float));
  GBytes* long_descriptors = g_bytes_new_static(scratch, descriptors.size() * sizeof(float) + 4);
  GBytes* huge_rows = g_bytes_new_static(scratch, gsize{n} * (1u << 30) * sizeof(float));
  expect_refused(gst_buffer_add_keypoints_meta_from_bytes(
                     buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480, keypoint_bytes,
                     GST_KEYPOINTS_DESCRIPTOR_FLOAT32, kDescriptorSize, long_descriptors),
                 "from_bytes: descriptors too long");
  expect_refused(gst_buffer_add_keypoints_meta_from_bytes(
                     buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480, keypoint_bytes,
                     GST_KEYPOINTS_DESCRIPTOR_UINT8, kDescriptorSize, exact),
                 "from_bytes: float bytes for uint8 rows");
  expect_refused(gst_buffer_add_keypoints_meta_from_bytes(buffer, GST_KEYPOINTS_METHOD_SIFT, 640,
                                                          480, keypoint_bytes,
                                                          GST_KEYPOINTS_DESCRIPTOR_NONE, 0, exact),
                 "from_bytes: descriptors without a type");
  expect_refused(gst_buffer_add_keypoints_meta_from_bytes(
                     buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480, keypoint_bytes,
                     GST_KEYPOINTS_DESCRIPTOR_FLOAT32, kDescriptorSize, nullptr),
                 "from_bytes: NULL descriptors for keypoints");
  expect_refused(gst_buffer_add_keypoints_meta_from_bytes(
                     buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480, keypoint_bytes,
                     GST_KEYPOINTS_DESCRIPTOR_FLOAT32, 1u << 30, huge_rows),
                 "from_bytes: huge descriptor rows");
  expect_refused(
      gst_buffer_add_keypoints_meta_from_bytes(buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480, nullptr,
                                               GST_KEYPOINTS_DESCRIPTOR_NONE, 0, nullptr),
      "from_bytes: NULL keypoints");
  g_bytes_unref(huge_rows);
  g_bytes_unref(long_descriptors);
  g_bytes_unref(exact);
  g_bytes_unref(keypoint_bytes);

  EXPECT_EQ(gst_test::LogCounter::criticals() - criticals_before, refusals);
  EXPECT_EQ(count_keypoints_metas(buffer), 0u);

  /* The limits themselves are taken. */
  const std::vector<guint8> widest(GST_KEYPOINTS_MAX_DESCRIPTOR_SIZE * keypoints.size(), 7);
  EXPECT_NE(gst_buffer_add_keypoints_meta(buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480,
                                          keypoints.data(), n, GST_KEYPOINTS_DESCRIPTOR_UINT8,
                                          GST_KEYPOINTS_MAX_DESCRIPTOR_SIZE, widest.data()),
            nullptr);
  EXPECT_EQ(gst_test::LogCounter::criticals() - criticals_before, refusals);
  gst_buffer_unref(buffer);
}

TEST(KeypointsMeta, BufferCopiesShareTheArrays) {
  GstBuffer* buffer = gst_test::make_video_buffer(GST_VIDEO_FORMAT_RGBA, 64, 48, 0);
  const GstKeypointsMeta* original = add_sample_meta(buffer);

  GstBuffer* copy = gst_buffer_copy(buffer);
  const GstKeypointsMeta* copied = gst_buffer_get_keypoints_meta(copy);
  ASSERT_NE(copied, nullptr);
  EXPECT_NE(copied, original);
  EXPECT_EQ(copied->keypoints, original->keypoints);
  EXPECT_EQ(copied->descriptors, original->descriptors);
  EXPECT_EQ(copied->n_keypoints, original->n_keypoints);
  EXPECT_EQ(copied->width, original->width);
  EXPECT_EQ(copied->descriptor_size, original->descriptor_size);

  GstBuffer* region = gst_buffer_copy_region(buffer, GST_BUFFER_COPY_ALL, 0, 64);
  const GstKeypointsMeta* region_meta = gst_buffer_get_keypoints_meta(region);
  ASSERT_NE(region_meta, nullptr);
  EXPECT_EQ(region_meta->keypoints, original->keypoints);

  /* The arrays outlive the buffer they were added to. */
  gst_buffer_unref(buffer);
  EXPECT_EQ(copied->keypoints[1].x, 320.5f);
  gst_buffer_unref(region);
  gst_buffer_unref(copy);
}

TEST(KeypointsMeta, ScaleTransformScalesPositionsAndSizesAndSharesDescriptors) {
  GstBuffer* buffer = gst_buffer_new();
  const GstKeypointsMeta* meta = add_sample_meta(buffer);
  GstVideoInfo in_info = gst_test::video_info(GST_VIDEO_FORMAT_RGBA, 640, 480);
  GstVideoInfo out_info = gst_test::video_info(GST_VIDEO_FORMAT_RGBA, 320, 120);
  GstVideoMetaTransform scale = {&in_info, &out_info};
  GstBuffer* scaled_buffer = gst_buffer_new();

  ASSERT_TRUE(meta->meta.info->transform_func(scaled_buffer, (GstMeta*)meta, buffer,
                                              gst_video_meta_transform_scale_get_quark(), &scale));
  const GstKeypointsMeta* scaled = gst_buffer_get_keypoints_meta(scaled_buffer);
  ASSERT_NE(scaled, nullptr);
  EXPECT_EQ(scaled->width, 320u);
  EXPECT_EQ(scaled->height, 120u);
  ASSERT_EQ(scaled->n_keypoints, meta->n_keypoints);
  for (guint i = 0; i < meta->n_keypoints; i++) {
    const GstKeypoint& before = meta->keypoints[i];
    const GstKeypoint& after = scaled->keypoints[i];
    EXPECT_FLOAT_EQ(after.x, before.x / 2);
    EXPECT_FLOAT_EQ(after.y, before.y / 4);
    EXPECT_FLOAT_EQ(after.size, before.size * (0.5f + 0.25f) / 2);
    EXPECT_EQ(after.response, before.response);
    EXPECT_EQ(after.octave, before.octave);
    EXPECT_EQ(after.class_id, before.class_id);
  }
  /* Squashing y by twice as much as x turns 45 degrees towards the x axis; "no angle" stays. */
  EXPECT_NEAR(scaled->keypoints[0].angle, std::atan2(0.25, 0.5) * 180.0 / G_PI, 1e-4);
  EXPECT_NEAR(scaled->keypoints[1].angle, 270.0f, 1e-4);
  EXPECT_EQ(scaled->keypoints[2].angle, -1.0f);
  EXPECT_EQ(scaled->descriptors, meta->descriptors);
  gst_buffer_unref(scaled_buffer);
  gst_buffer_unref(buffer);
}

TEST(KeypointsMeta, OtherTransformsDropTheMeta) {
  GstBuffer* buffer = gst_buffer_new();
  const GstKeypointsMeta* meta = add_sample_meta(buffer);
  GstBuffer* dest = gst_buffer_new();
  EXPECT_FALSE(meta->meta.info->transform_func(
      dest, (GstMeta*)meta, buffer, g_quark_from_static_string("gpusift-test-rotate"), nullptr));
  EXPECT_EQ(gst_buffer_get_keypoints_meta(dest), nullptr);
  gst_buffer_unref(dest);
  gst_buffer_unref(buffer);
}

TEST(KeypointsMetaPipeline, VideoscaleHalvesCoordinatesAndKeepsDescriptors) {
  GstBuffer* output = run_through("videoscale ! capsfilter caps=video/x-raw,width=320,height=240");
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(count_keypoints_metas(output), 1u);
  const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(output);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->width, 320u);
  EXPECT_EQ(meta->height, 240u);
  const auto keypoints = sample_keypoints();
  ASSERT_EQ(meta->n_keypoints, keypoints.size());
  for (size_t i = 0; i < keypoints.size(); i++) {
    GstKeypoint expected = keypoints[i];
    expected.x /= 2;
    expected.y /= 2;
    expected.size /= 2;
    expect_same_keypoint(meta->keypoints[i], expected);
  }
  const auto descriptors = sample_descriptors(keypoints.size());
  ASSERT_EQ(meta->descriptor_type, GST_KEYPOINTS_DESCRIPTOR_FLOAT32);
  ASSERT_EQ(meta->descriptor_size, kDescriptorSize);
  EXPECT_EQ(std::memcmp(meta->descriptors, descriptors.data(), descriptors.size() * sizeof(float)),
            0);
  gst_buffer_unref(output);
}

TEST(KeypointsMetaPipeline, VideoconvertKeepsTheMetaUnchanged) {
  GstBuffer* output = run_through("videoconvert ! capsfilter caps=video/x-raw,format=I420");
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(count_keypoints_metas(output), 1u);
  const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(output);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->width, 640u);
  EXPECT_EQ(meta->height, 480u);
  const auto keypoints = sample_keypoints();
  ASSERT_EQ(meta->n_keypoints, keypoints.size());
  for (size_t i = 0; i < keypoints.size(); i++) {
    expect_same_keypoint(meta->keypoints[i], keypoints[i]);
  }
  gst_buffer_unref(output);
}

TEST(KeypointsMetaPipeline, VideoflipDropsTheMeta) {
  GstBuffer* output = run_through("videoflip video-direction=horiz");
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(count_keypoints_metas(output), 0u);
  gst_buffer_unref(output);
}

TEST(KeypointsMetaOpenCv, ConvertsKeypointsAndCopiesDescriptors) {
  GstBuffer* buffer = gst_buffer_new();
  const GstKeypointsMeta* meta = add_sample_meta(buffer);

  const std::vector<cv::KeyPoint> keypoints = gst_keypoints::to_cv_keypoints(meta);
  ASSERT_EQ(keypoints.size(), meta->n_keypoints);
  for (size_t i = 0; i < keypoints.size(); i++) {
    const GstKeypoint& expected = meta->keypoints[i];
    EXPECT_EQ(keypoints[i].pt.x, expected.x);
    EXPECT_EQ(keypoints[i].pt.y, expected.y);
    EXPECT_EQ(keypoints[i].size, expected.size);
    EXPECT_EQ(keypoints[i].angle, expected.angle);
    EXPECT_EQ(keypoints[i].response, expected.response);
    EXPECT_EQ(keypoints[i].octave, expected.octave);
    EXPECT_EQ(keypoints[i].class_id, expected.class_id);
  }

  const cv::Mat descriptors = gst_keypoints::to_cv_descriptors(meta);
  EXPECT_EQ(descriptors.type(), CV_32F);
  EXPECT_EQ(descriptors.rows, static_cast<int>(meta->n_keypoints));
  EXPECT_EQ(descriptors.cols, static_cast<int>(kDescriptorSize));
  EXPECT_NE(static_cast<const void*>(descriptors.data), meta->descriptors);
  const auto* values = static_cast<const float*>(meta->descriptors);
  EXPECT_EQ(descriptors.at<float>(2, 127), values[2 * kDescriptorSize + 127]);
  EXPECT_EQ(descriptors.at<float>(1, 3), values[kDescriptorSize + 3]);
  gst_buffer_unref(buffer);
}

TEST(KeypointsMetaOpenCv, Uint8AndMissingDescriptors) {
  const auto keypoints = sample_keypoints();
  std::vector<guint8> descriptors(keypoints.size() * 61);
  for (size_t i = 0; i < descriptors.size(); i++) {
    descriptors[i] = static_cast<guint8>(i);
  }
  GstBuffer* buffer = gst_buffer_new();
  const GstKeypointsMeta* with_bytes = gst_buffer_add_keypoints_meta(
      buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480, keypoints.data(),
      static_cast<guint>(keypoints.size()), GST_KEYPOINTS_DESCRIPTOR_UINT8, 61, descriptors.data());
  const cv::Mat mat = gst_keypoints::to_cv_descriptors(with_bytes);
  EXPECT_EQ(mat.type(), CV_8U);
  EXPECT_EQ(mat.rows, 3);
  EXPECT_EQ(mat.cols, 61);
  EXPECT_EQ(mat.at<guint8>(2, 60), descriptors[2 * 61 + 60]);

  GstBuffer* other = gst_buffer_new();
  const GstKeypointsMeta* without = gst_buffer_add_keypoints_meta(
      other, GST_KEYPOINTS_METHOD_SIFT, 640, 480, keypoints.data(),
      static_cast<guint>(keypoints.size()), GST_KEYPOINTS_DESCRIPTOR_NONE, 0, nullptr);
  EXPECT_TRUE(gst_keypoints::to_cv_descriptors(without).empty());
  EXPECT_EQ(gst_keypoints::to_cv_keypoints(without).size(), keypoints.size());
  EXPECT_TRUE(gst_keypoints::to_cv_keypoints(nullptr).empty());
  gst_buffer_unref(other);
  gst_buffer_unref(buffer);
}

/* gst_keypoints_meta_validate() against every field a caller could change, and every reader
 * in the library refusing what it refuses: the accessors and the OpenCV helper with a critical
 * and nothing read, the COPY and SCALE transforms with a critical and no meta on the copy. */
struct FieldLie {
  const char* name;
  void (*apply)(GstKeypointsMeta* meta);
  const char* says;
};

const FieldLie kFieldLies[] = {
    {"far too many", [](GstKeypointsMeta* m) { m->n_keypoints = m->n_keypoints * 1000 + 7; },
     "n_keypoints is 3007 but the keypoint array holds 3"},
    {"one more", [](GstKeypointsMeta* m) { m->n_keypoints += 1; },
     "n_keypoints is 4 but the keypoint array holds 3"},
    {"one fewer", [](GstKeypointsMeta* m) { m->n_keypoints -= 1; },
     "n_keypoints is 2 but the keypoint array holds 3"},
    {"past the maximum", [](GstKeypointsMeta* m) { m->n_keypoints = G_MAXUINT; },
     "n_keypoints is 4294967295"},
    {"descriptor size one more", [](GstKeypointsMeta* m) { m->descriptor_size += 1; },
     "3 rows of 129 float32 values do not fit the descriptor array of 1536 bytes"},
    {"descriptor size huge", [](GstKeypointsMeta* m) { m->descriptor_size = G_MAXUINT; },
     "3 rows of 4294967295 float32 values do not fit"},
    {"uint8 type for float rows",
     [](GstKeypointsMeta* m) { m->descriptor_type = GST_KEYPOINTS_DESCRIPTOR_UINT8; },
     "3 rows of 128 uint8 values do not fit"},
    {"type none with rows",
     [](GstKeypointsMeta* m) { m->descriptor_type = GST_KEYPOINTS_DESCRIPTOR_NONE; },
     "descriptor_size 128 with descriptor_type none"},
    {"type none and size 0 with rows",
     [](GstKeypointsMeta* m) {
       m->descriptor_type = GST_KEYPOINTS_DESCRIPTOR_NONE;
       m->descriptor_size = 0;
     },
     "descriptor_type none but the meta has a descriptor array"},
    {"type out of range",
     [](GstKeypointsMeta* m) { m->descriptor_type = static_cast<GstKeypointsDescriptorType>(9); },
     "descriptor_type 9 is not none (0), float32 (1) or uint8 (2)"},
    {"method out of range",
     [](GstKeypointsMeta* m) { m->method = static_cast<GstKeypointsMethod>(5); },
     "method 5 is neither sift (0) nor surf (1)"},
    {"width 0", [](GstKeypointsMeta* m) { m->width = 0; }, "frame size 0x480 is empty"},
    {"keypoints elsewhere", [](GstKeypointsMeta* m) { m->keypoints += 1; },
     "keypoints does not point at the meta's keypoint array"},
    {"descriptors elsewhere",
     [](GstKeypointsMeta* m) { m->descriptors = static_cast<const float*>(m->descriptors) + 1; },
     "descriptors does not point at the meta's descriptor array"},
};

TEST(KeypointsMetaIntegrity, ValidateNamesEveryChangedField) {
  for (const FieldLie& lie : kFieldLies) {
    SCOPED_TRACE(lie.name);
    GstBuffer* buffer = gst_buffer_new();
    GstKeypointsMeta* meta = add_sample_meta(buffer);
    ASSERT_TRUE(gst_keypoints_meta_validate(meta, nullptr));
    lie.apply(meta);
    GError* error = nullptr;
    EXPECT_FALSE(gst_keypoints_meta_validate(meta, &error));
    ASSERT_NE(error, nullptr);
    EXPECT_EQ(error->domain, GST_KEYPOINTS_META_ERROR);
    EXPECT_EQ(error->code, GST_KEYPOINTS_META_ERROR_INCONSISTENT);
    EXPECT_NE(std::string(error->message).find(lie.says), std::string::npos) << error->message;
    g_error_free(error);
    gst_buffer_unref(buffer);
  }
}

TEST(KeypointsMetaIntegrity, ReadersRefuseAChangedMetaWithACritical) {
  GstVideoInfo in_info = gst_test::video_info(GST_VIDEO_FORMAT_RGBA, 640, 480);
  GstVideoInfo out_info = gst_test::video_info(GST_VIDEO_FORMAT_RGBA, 320, 240);
  GstVideoMetaTransform scale = {&in_info, &out_info};
  for (const FieldLie& lie : kFieldLies) {
    SCOPED_TRACE(lie.name);
    GstBuffer* buffer = gst_buffer_new();
    GstKeypointsMeta* meta = add_sample_meta(buffer);
    lie.apply(meta);
    const int criticals = gst_test::LogCounter::criticals();

    EXPECT_EQ(gst_keypoints_meta_get_keypoints_bytes(meta), nullptr);
    EXPECT_EQ(gst_keypoints_meta_get_descriptors_bytes(meta), nullptr);
    EXPECT_EQ(gst_keypoints_meta_get_keypoints_buffer(meta), nullptr);
    EXPECT_EQ(gst_keypoints_meta_get_descriptors_buffer(meta), nullptr);
    EXPECT_TRUE(gst_keypoints::to_cv_keypoints(meta).empty());
    EXPECT_TRUE(gst_keypoints::to_cv_descriptors(meta).empty());
    EXPECT_EQ(gst_test::LogCounter::criticals(), criticals + 6);

    GstBuffer* copy = gst_buffer_copy(buffer);
    EXPECT_EQ(gst_buffer_get_keypoints_meta(copy), nullptr);
    GstBuffer* scaled = gst_buffer_new();
    EXPECT_FALSE(meta->meta.info->transform_func(
        scaled, (GstMeta*)meta, buffer, gst_video_meta_transform_scale_get_quark(), &scale));
    EXPECT_EQ(gst_buffer_get_keypoints_meta(scaled), nullptr);
    EXPECT_EQ(gst_test::LogCounter::criticals(), criticals + 8);
    gst_buffer_unref(scaled);
    gst_buffer_unref(copy);
    gst_buffer_unref(buffer);
  }
}

/* Metas made by the add functions pass, with and without keypoints and descriptors. */
TEST(KeypointsMetaIntegrity, MetasAsAddedAreConsistent) {
  GstBuffer* buffer = gst_buffer_new();
  EXPECT_TRUE(gst_keypoints_meta_validate(add_sample_meta(buffer), nullptr));
  gst_buffer_unref(buffer);
  buffer = gst_buffer_new();
  EXPECT_TRUE(gst_keypoints_meta_validate(
      gst_buffer_add_keypoints_meta(buffer, GST_KEYPOINTS_METHOD_SURF, 8, 8, nullptr, 0,
                                    GST_KEYPOINTS_DESCRIPTOR_UINT8, 64, nullptr),
      nullptr));
  gst_buffer_unref(buffer);
  buffer = gst_buffer_new();
  const auto keypoints = sample_keypoints();
  EXPECT_TRUE(gst_keypoints_meta_validate(
      gst_buffer_add_keypoints_meta(buffer, GST_KEYPOINTS_METHOD_SIFT, 8, 8, keypoints.data(), 3,
                                    GST_KEYPOINTS_DESCRIPTOR_NONE, 0, nullptr),
      nullptr));
  gst_buffer_unref(buffer);
}

}  // namespace

int main(int argc, char** argv) {
  gst_test::LogCounter::install();
  gst_init(&argc, &argv);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
