// SPDX-License-Identifier: LGPL-2.1-or-later
/* The meta's functions for bindings: gst_buffer_get_keypoints_meta() and the accessors that hand
 * out the arrays as GBytes and read-only GstBuffers sharing the meta's storage. */
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "gst_test_support.h"

namespace {

constexpr guint kDescriptorSize = 128;

std::vector<GstKeypoint> sample_keypoints() {
  return {
      {100.0f, 50.0f, 8.0f, 45.0f, 0.03f, 0x00ff01, -1},
      {320.5f, 240.25f, 20.0f, 270.0f, 0.05f, 0x010200, -1},
  };
}

/* A buffer with the sample keypoints and float descriptors (or none). */
GstBuffer* buffer_with_meta(GstKeypointsDescriptorType descriptor_type) {
  const auto keypoints = sample_keypoints();
  const guint size = descriptor_type == GST_KEYPOINTS_DESCRIPTOR_NONE ? 0 : kDescriptorSize;
  const std::vector<float> descriptors(keypoints.size() * size, 0.25f);
  GstBuffer* buffer = gst_buffer_new();
  gst_buffer_add_keypoints_meta(buffer, GST_KEYPOINTS_METHOD_SIFT, 640, 480, keypoints.data(),
                                static_cast<guint>(keypoints.size()), descriptor_type, size,
                                size ? descriptors.data() : nullptr);
  return buffer;
}

/* Expects buffer to be one read-only memory starting at data, of size bytes. */
void expect_wraps(GstBuffer* buffer, gconstpointer data, gsize size) {
  ASSERT_NE(buffer, nullptr);
  ASSERT_EQ(gst_buffer_n_memory(buffer), 1u);
  EXPECT_TRUE(GST_MEMORY_IS_READONLY(gst_buffer_peek_memory(buffer, 0)));
  GstMapInfo map;
  ASSERT_TRUE(gst_buffer_map(buffer, &map, GST_MAP_READ));
  EXPECT_EQ(map.data, data);
  EXPECT_EQ(map.size, size);
  gst_buffer_unmap(buffer, &map);
}

TEST(KeypointsMetaBindings, GetFindsTheMetaOrNothing) {
  GstBuffer* with = buffer_with_meta(GST_KEYPOINTS_DESCRIPTOR_FLOAT32);
  GstBuffer* without = gst_buffer_new();

  EXPECT_EQ(
      gst_buffer_get_keypoints_meta(with),
      reinterpret_cast<GstKeypointsMeta*>(gst_buffer_get_meta(with, GST_KEYPOINTS_META_API_TYPE)));
  EXPECT_NE(gst_buffer_get_keypoints_meta(with), nullptr);
  EXPECT_EQ(gst_buffer_get_keypoints_meta(without), nullptr);
  gst_buffer_unref(without);
  gst_buffer_unref(with);
}

TEST(KeypointsMetaBindings, BuffersWrapTheMetaArraysWithoutCopying) {
  GstBuffer* frame = buffer_with_meta(GST_KEYPOINTS_DESCRIPTOR_FLOAT32);
  const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(frame);

  GstBuffer* keypoints = gst_keypoints_meta_get_keypoints_buffer(meta);
  GstBuffer* descriptors = gst_keypoints_meta_get_descriptors_buffer(meta);

  expect_wraps(keypoints, meta->keypoints, 2 * sizeof(GstKeypoint));
  expect_wraps(descriptors, meta->descriptors, 2 * kDescriptorSize * sizeof(float));
  gst_buffer_unref(descriptors);
  gst_buffer_unref(keypoints);
  gst_buffer_unref(frame);
}

TEST(KeypointsMetaBindings, BytesAreTheMetaStorage) {
  GstBuffer* frame = buffer_with_meta(GST_KEYPOINTS_DESCRIPTOR_FLOAT32);
  const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(frame);

  GBytes* keypoints = gst_keypoints_meta_get_keypoints_bytes(meta);
  GBytes* descriptors = gst_keypoints_meta_get_descriptors_bytes(meta);

  gsize size = 0;
  EXPECT_EQ(g_bytes_get_data(keypoints, &size), meta->keypoints);
  EXPECT_EQ(size, 2 * sizeof(GstKeypoint));
  EXPECT_EQ(g_bytes_get_data(descriptors, &size), meta->descriptors);
  EXPECT_EQ(size, 2 * kDescriptorSize * sizeof(float));
  g_bytes_unref(descriptors);
  g_bytes_unref(keypoints);
  gst_buffer_unref(frame);
}

TEST(KeypointsMetaBindings, ArraysOutliveTheFrame) {
  GstBuffer* frame = buffer_with_meta(GST_KEYPOINTS_DESCRIPTOR_FLOAT32);
  GstBuffer* keypoints =
      gst_keypoints_meta_get_keypoints_buffer(gst_buffer_get_keypoints_meta(frame));
  gst_buffer_unref(frame);

  const auto expected = sample_keypoints();
  GstMapInfo map;
  ASSERT_TRUE(gst_buffer_map(keypoints, &map, GST_MAP_READ));
  ASSERT_EQ(map.size, expected.size() * sizeof(GstKeypoint));
  EXPECT_EQ(std::memcmp(map.data, expected.data(), map.size), 0);
  gst_buffer_unmap(keypoints, &map);
  gst_buffer_unref(keypoints);
}

TEST(KeypointsMetaBindings, WithoutDescriptorsTheDescriptorAccessorsGiveNull) {
  GstBuffer* frame = buffer_with_meta(GST_KEYPOINTS_DESCRIPTOR_NONE);
  const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(frame);

  EXPECT_EQ(gst_keypoints_meta_get_descriptors_buffer(meta), nullptr);
  EXPECT_EQ(gst_keypoints_meta_get_descriptors_bytes(meta), nullptr);
  GstBuffer* keypoints = gst_keypoints_meta_get_keypoints_buffer(meta);
  expect_wraps(keypoints, meta->keypoints, 2 * sizeof(GstKeypoint));
  gst_buffer_unref(keypoints);
  gst_buffer_unref(frame);
}

TEST(KeypointsMetaBindings, NoKeypointsGiveEmptyBuffers) {
  GstBuffer* frame = gst_buffer_new();
  const GstKeypointsMeta* meta =
      gst_buffer_add_keypoints_meta(frame, GST_KEYPOINTS_METHOD_SIFT, 640, 480, nullptr, 0,
                                    GST_KEYPOINTS_DESCRIPTOR_UINT8, kDescriptorSize, nullptr);
  ASSERT_NE(meta, nullptr);

  GstBuffer* keypoints = gst_keypoints_meta_get_keypoints_buffer(meta);
  GstBuffer* descriptors = gst_keypoints_meta_get_descriptors_buffer(meta);

  ASSERT_NE(keypoints, nullptr);
  ASSERT_NE(descriptors, nullptr);
  EXPECT_EQ(gst_buffer_get_size(keypoints), 0u);
  EXPECT_EQ(gst_buffer_get_size(descriptors), 0u);
  gst_buffer_unref(descriptors);
  gst_buffer_unref(keypoints);
  gst_buffer_unref(frame);
}

TEST(KeypointsMetaBindings, InvalidArgumentsAreRefusedWithACritical) {
  GstKeypointsMeta not_added;
  std::memset(&not_added, 0, sizeof(not_added));
  const int criticals_before = gst_test::LogCounter::criticals();

  EXPECT_EQ(gst_buffer_get_keypoints_meta(nullptr), nullptr);
  for (const GstKeypointsMeta* meta : {static_cast<const GstKeypointsMeta*>(nullptr),
                                       static_cast<const GstKeypointsMeta*>(&not_added)}) {
    EXPECT_EQ(gst_keypoints_meta_get_keypoints_bytes(meta), nullptr);
    EXPECT_EQ(gst_keypoints_meta_get_descriptors_bytes(meta), nullptr);
    EXPECT_EQ(gst_keypoints_meta_get_keypoints_buffer(meta), nullptr);
    EXPECT_EQ(gst_keypoints_meta_get_descriptors_buffer(meta), nullptr);
  }

  EXPECT_EQ(gst_test::LogCounter::criticals() - criticals_before, 9);
}

}  // namespace

int main(int argc, char** argv) {
  gst_test::LogCounter::install();
  gst_init(&argc, &argv);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
