// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusiftfilter's tensors (builds against GStreamer 1.26 and newer with its analytics library; CI's
// Debian 13 stage runs it): for SIFT and SURF, float and uint8 descriptors and none, the
// keypoints tensor holds every field of every keypoint of the meta, bit for bit, and the
// descriptors tensor the meta's rows, byte for byte, in the meta's own memory; the analytics
// property switches them off and on at a frame boundary; tensors already on a buffer stay; a
// lying meta is refused with a critical.
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/keypoints/gstkeypointstensors.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>
// GstTensor ends in a flexible array member, which ISO C++ does not have.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <gst/analytics/gsttensormeta.h>
#pragma GCC diagnostic pop

#include <cstring>
#include <string>

#include "frame_factory.h"
#include "gst_test_support.h"
#include "object_scenes.h"
#include "tracker_test_support.h"

namespace gpusift::testing {
namespace {

GstHarness* filter_harness(const std::string& properties) {
  GstHarness* h = gst_harness_new_parse(("gpusiftfilter backend=cpu " + properties).c_str());
  gst_harness_set_src_caps_str(
      h, caps_string(GST_VIDEO_FORMAT_BGR, kSceneSize.width, kSceneSize.height).c_str());
  return h;
}

GstBuffer* push_scene(GstHarness* h) {
  return push_and_pull(h, make_frame(positive_scenes()[0].bgr, GST_VIDEO_FORMAT_BGR));
}

const GstTensor* tensor_by_id(GstTensorMeta* meta, const char* id) {
  const gint index = gst_tensor_meta_get_index_from_id(meta, g_quark_from_string(id));
  return index < 0 ? nullptr : gst_tensor_meta_get(meta, static_cast<gsize>(index));
}

// Every field of every keypoint, and every descriptor byte, against the meta's arrays.
void expect_tensors_equal_the_meta(GstBuffer* buffer, const std::string& what) {
  const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(buffer);
  ASSERT_NE(meta, nullptr) << what;
  ASSERT_GT(meta->n_keypoints, 100u) << what;
  GstTensorMeta* tensors = gst_buffer_get_tensor_meta(buffer);
  ASSERT_NE(tensors, nullptr) << what;
  const GstTensor* keypoints = tensor_by_id(tensors, GST_KEYPOINTS_TENSOR_KEYPOINTS);
  ASSERT_NE(keypoints, nullptr) << what;
  EXPECT_EQ(keypoints->data_type, GST_TENSOR_DATA_TYPE_FLOAT32);
  EXPECT_EQ(keypoints->dims_order, GST_TENSOR_DIM_ORDER_ROW_MAJOR);
  ASSERT_EQ(keypoints->num_dims, 2u);
  EXPECT_EQ(keypoints->dims[0], meta->n_keypoints);
  EXPECT_EQ(keypoints->dims[1], 7u);
  GstMapInfo map;
  ASSERT_TRUE(gst_buffer_map(keypoints->data, &map, GST_MAP_READ));
  ASSERT_EQ(map.size, meta->n_keypoints * 7 * sizeof(float));
  const float* rows = reinterpret_cast<const float*>(map.data);
  int differing = 0;
  for (guint i = 0; i < meta->n_keypoints; ++i) {
    const GstKeypoint& k = meta->keypoints[i];
    const float expected[7] = {k.x,
                               k.y,
                               k.size,
                               k.angle,
                               k.response,
                               static_cast<float>(k.octave),
                               static_cast<float>(k.class_id)};
    differing += std::memcmp(rows + 7 * i, expected, sizeof(expected)) != 0;
    differing += static_cast<gint32>(rows[7 * i + 5]) != k.octave;
  }
  gst_buffer_unmap(keypoints->data, &map);
  EXPECT_EQ(differing, 0) << what;

  const GstTensor* descriptors = tensor_by_id(tensors, GST_KEYPOINTS_TENSOR_DESCRIPTORS);
  if (meta->descriptor_type == GST_KEYPOINTS_DESCRIPTOR_NONE) {
    EXPECT_EQ(descriptors, nullptr) << what;
    EXPECT_EQ(tensors->num_tensors, 1u);
    return;
  }
  ASSERT_NE(descriptors, nullptr) << what;
  EXPECT_EQ(tensors->num_tensors, 2u);
  const bool bytes = meta->descriptor_type == GST_KEYPOINTS_DESCRIPTOR_UINT8;
  EXPECT_EQ(descriptors->data_type,
            bytes ? GST_TENSOR_DATA_TYPE_UINT8 : GST_TENSOR_DATA_TYPE_FLOAT32);
  ASSERT_EQ(descriptors->num_dims, 2u);
  EXPECT_EQ(descriptors->dims[0], meta->n_keypoints);
  EXPECT_EQ(descriptors->dims[1], meta->descriptor_size);
  ASSERT_TRUE(gst_buffer_map(descriptors->data, &map, GST_MAP_READ));
  const gsize row_bytes = meta->descriptor_size * (bytes ? 1 : sizeof(float));
  ASSERT_EQ(map.size, meta->n_keypoints * row_bytes);
  // The meta's own rows, not a copy.
  EXPECT_EQ(static_cast<const void*>(map.data), meta->descriptors) << what;
  EXPECT_EQ(std::memcmp(map.data, meta->descriptors, map.size), 0) << what;
  gst_buffer_unmap(descriptors->data, &map);
}

TEST(GpusiftfilterTensors, EqualTheMetaForEveryMethodAndDescriptor) {
  for (const std::string properties :
       {"", "descriptor=uint8", "descriptor=none", "method=surf", "method=surf descriptor=none"}) {
    GstHarness* h = filter_harness(properties);
    GstBuffer* out = push_scene(h);
    ASSERT_NE(out, nullptr) << properties;
    expect_tensors_equal_the_meta(out, properties.empty() ? "defaults" : properties);
    gst_buffer_unref(out);
    gst_harness_teardown(h);
  }
}

TEST(GpusiftfilterTensors, ThePropertySwitchesThemAtAFrameBoundary) {
  GstHarness* h = filter_harness("analytics=false");
  GstElement* filter = gst_harness_find_element(h, "gpusiftfilter");
  ASSERT_NE(filter, nullptr);
  const bool setting[] = {false, true, false, true};
  for (bool on : setting) {
    g_object_set(filter, "analytics", on ? TRUE : FALSE, nullptr);
    GstBuffer* out = push_scene(h);
    ASSERT_NE(out, nullptr);
    EXPECT_NE(gst_buffer_get_keypoints_meta(out), nullptr);
    EXPECT_EQ(gst_buffer_get_tensor_meta(out) != nullptr, on);
    gst_buffer_unref(out);
  }
  gst_object_unref(filter);
  gst_harness_teardown(h);
}

// A tensor someone else put on the buffer stays, first; a meta whose count lies is refused.
TEST(GpusiftfilterTensors, TensorsAlreadyThereStayAndALyingMetaIsRefused) {
  GstHarness* h = filter_harness("analytics=false");
  GstBuffer* out = push_scene(h);
  ASSERT_NE(out, nullptr);
  GstTensorMeta* tensors = gst_buffer_add_tensor_meta(out);
  gsize dims[1] = {3};
  GstTensor** theirs = g_new(GstTensor*, 1);
  theirs[0] = gst_tensor_new_simple(g_quark_from_string("theirs"), GST_TENSOR_DATA_TYPE_UINT8,
                                    gst_buffer_new_allocate(nullptr, 3, nullptr),
                                    GST_TENSOR_DIM_ORDER_ROW_MAJOR, 1, dims);
  gst_tensor_meta_set(tensors, 1, theirs);
  GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(out);
  ASSERT_TRUE(gst_buffer_add_keypoints_tensors(out, meta));
  tensors = gst_buffer_get_tensor_meta(out);
  ASSERT_EQ(tensors->num_tensors, 3u);
  EXPECT_EQ(gst_tensor_meta_get(tensors, 0)->id, g_quark_from_string("theirs"));
  EXPECT_EQ(gst_tensor_meta_get(tensors, 0)->dims[0], 3u);
  EXPECT_NE(tensor_by_id(tensors, GST_KEYPOINTS_TENSOR_KEYPOINTS), nullptr);
  EXPECT_NE(tensor_by_id(tensors, GST_KEYPOINTS_TENSOR_DESCRIPTORS), nullptr);

  const int criticals = gst_test::LogCounter::criticals();
  meta->n_keypoints += 1;
  EXPECT_FALSE(gst_buffer_add_keypoints_tensors(out, meta));
  EXPECT_EQ(gst_test::LogCounter::criticals(), criticals + 1);
  EXPECT_NE(gst_test::LogCounter::last_critical().find("n_keypoints"), std::string::npos)
      << gst_test::LogCounter::last_critical();
  meta->n_keypoints -= 1;
  EXPECT_EQ(gst_buffer_get_tensor_meta(out)->num_tensors, 3u);
  gst_buffer_unref(out);
  gst_harness_teardown(h);
}

}  // namespace
}  // namespace gpusift::testing
