// SPDX-License-Identifier: LGPL-2.1-or-later
// keypointmatcher on the GPU: CUDA and CPU matching give identical detections (the same
// reference features from a file, the same GPU keypoints), the whole CUDA path (the reference's
// features by the CUDA extractor too) finds every positive scene within 2 px and nothing in 50
// scenes without the reference, and the matcher shares gpusiftfilter's CUDA context.
#include <gst/check/gstharness.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsobjectmeta.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_context_support.h"
#include "frame_factory.h"
#include "object_scenes.h"
#include "tracker_test_support.h"

namespace gpusift::testing {
namespace {

// What one frame gave: the detection (when found) and the message's counts.
struct FrameResult {
  bool found = false;
  guint matches = 0;
  guint inliers = 0;
  GstKeypointsObjectMeta object{};
};

std::vector<FrameResult> run_scenes(const std::string& matcher_properties,
                                    const std::vector<ObjectScene>& scenes) {
  const std::string description =
      "gpusiftfilter backend=cuda ! keypointmatcher post-messages=true " + matcher_properties;
  GstHarness* h = gst_harness_new_parse(description.c_str());
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(h->element, bus);
  gst_object_unref(bus);
  std::vector<FrameResult> results;
  for (const ObjectScene& scene : scenes) {
    gst_harness_set_src_caps_str(
        h, caps_string(GST_VIDEO_FORMAT_BGR, scene.bgr.cols, scene.bgr.rows).c_str());
    GstBuffer* out = push_and_pull(h, make_frame(scene.bgr, GST_VIDEO_FORMAT_BGR));
    if (!out)
      break;
    FrameResult result;
    if (const GstKeypointsObjectMeta* meta = gst_buffer_get_keypoints_object_meta(out)) {
      result.found = true;
      result.object = *meta;
    }
    auto messages = bus_messages(h, GST_MESSAGE_ELEMENT);
    for (GstMessage* m : messages) {
      const GstStructure* s = gst_message_get_structure(m);
      gst_structure_get_uint(s, "matches", &result.matches);
      gst_structure_get_uint(s, "inliers", &result.inliers);
    }
    unref_all(&messages);
    results.push_back(result);
    gst_buffer_unref(out);
  }
  teardown_harness(h);
  return results;
}

std::vector<ObjectScene> all_scenes() {
  std::vector<ObjectScene> scenes = positive_scenes();
  const std::vector<ObjectScene> negatives = negative_scenes(50);
  scenes.insert(scenes.end(), negatives.begin(), negatives.end());
  return scenes;
}

TEST(KeypointMatcherCuda, GpuAndCpuMatchingGiveIdenticalDetections) {
  const ReferenceFiles& files = ReferenceFiles::get();
  const std::vector<ObjectScene> scenes = all_scenes();
  ASSERT_EQ(scenes.size(), 69u);
  const std::string reference = "reference=\"" + files.sift_features() + "\"";
  const auto gpu = run_scenes("backend=cuda " + reference, scenes);
  const auto cpu = run_scenes("backend=cpu " + reference, scenes);
  ASSERT_EQ(gpu.size(), scenes.size());
  ASSERT_EQ(cpu.size(), scenes.size());
  int found = 0;
  for (size_t i = 0; i < scenes.size(); ++i) {
    const FrameResult& g = gpu[i];
    const FrameResult& c = cpu[i];
    EXPECT_EQ(g.found, c.found) << scenes[i].name;
    EXPECT_EQ(g.found, scenes[i].has_object) << scenes[i].name;
    EXPECT_EQ(g.matches, c.matches) << scenes[i].name;
    EXPECT_EQ(g.inliers, c.inliers) << scenes[i].name;
    if (!g.found || !c.found)
      continue;
    ++found;
    EXPECT_EQ(0, std::memcmp(g.object.homography, c.object.homography, sizeof(g.object.homography)))
        << scenes[i].name;
    EXPECT_EQ(0, std::memcmp(g.object.corners, c.object.corners, sizeof(g.object.corners)))
        << scenes[i].name;
  }
  EXPECT_EQ(found, 19);
}

TEST(KeypointMatcherCuda, FindsEveryPositiveWithinTwoPixelsAndNoNegative) {
  const ReferenceFiles& files = ReferenceFiles::get();
  const std::vector<ObjectScene> scenes = all_scenes();
  const auto results = run_scenes("backend=cuda reference=\"" + files.png() + "\"", scenes);
  ASSERT_EQ(results.size(), scenes.size());
  double worst = 0.0;
  int detections_without_object = 0;
  for (size_t i = 0; i < scenes.size(); ++i) {
    if (!scenes[i].has_object) {
      detections_without_object += results[i].found ? 1 : 0;
      EXPECT_FALSE(results[i].found) << scenes[i].name;
      continue;
    }
    ASSERT_TRUE(results[i].found) << scenes[i].name;
    const double error =
        object_corner_error(&results[i].object, scenes[i].homography, files.size());
    std::printf("cuda positive %-36s %4u inliers  corner error %.3f px\n", scenes[i].name.c_str(),
                results[i].inliers, error);
    EXPECT_LE(error, 2.0) << scenes[i].name;
    worst = std::max(worst, error);
  }
  std::printf("cuda: worst corner error %.3f px, %d detections in 50 scenes without the object\n",
              worst, detections_without_object);
}

TEST(KeypointMatcherCuda, SharesGpusiftfiltersContext) {
  const std::string description =
      "videotestsrc num-buffers=3 ! video/x-raw,format=NV12,width=320,height=240 ! "
      "gpusiftfilter name=f backend=cuda ! keypointmatcher name=m backend=cuda reference=\"" +
      ReferenceFiles::get().png() + "\" ! fakesink";
  GstElement* pipeline = gst_parse_launch(description.c_str(), nullptr);
  ASSERT_NE(pipeline, nullptr);
  ASSERT_EQ(gst_test::play_until_end(pipeline, 30 * GST_SECOND), GST_MESSAGE_EOS);
  GstElement* filter = gst_bin_get_by_name(GST_BIN(pipeline), "f");
  GstElement* matcher = gst_bin_get_by_name(GST_BIN(pipeline), "m");
  GstCudaContext* a = cuda_context_of(filter);
  GstCudaContext* b = cuda_context_of(matcher);
  EXPECT_NE(a, nullptr);
  EXPECT_EQ(a, b);
  gst_clear_object(&a);
  gst_clear_object(&b);
  gst_object_unref(filter);
  gst_object_unref(matcher);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

}  // namespace
}  // namespace gpusift::testing
