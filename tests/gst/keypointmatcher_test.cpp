// SPDX-License-Identifier: LGPL-2.1-or-later
// keypointmatcher on the CPU backend behind gpusiftfilter: a real reference pasted into real
// backgrounds under rotation, scale and perspective is found within 2 px at every corner, 50
// frames without it give no detection; features-file references, every unreadable reference,
// buffers without keypoints, caps changes, messages, properties, and state cycles without leaks.
#include <glib/gstdio.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/keypoints/gstkeypointsobjectmeta.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "base/feature_settings_query.h"
#include "frame_factory.h"
#include "gpusift/cpu_sift.h"
#include "gpusift/extractor.h"
#include "gpusift/features_file_writer.h"
#include "object_scenes.h"
#include "test_images.h"
#include "tracker_test_support.h"

namespace gpusift::testing {
namespace {

// gpusiftfilter and keypointmatcher on the CPU, in a harness with a bus for their messages.
GstHarness* find_harness(const std::string& reference, const std::string& properties = "",
                         const std::string& filter_properties = "") {
  const std::string description = "gpusiftfilter backend=cpu " + filter_properties +
                                  " ! keypointmatcher backend=cpu reference=\"" + reference +
                                  "\" " + properties;
  GstHarness* h = gst_harness_new_parse(description.c_str());
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(h->element, bus);
  gst_object_unref(bus);
  return h;
}

GstBuffer* push_scene(GstHarness* h, const cv::Mat& bgr) {
  gst_harness_set_src_caps_str(h, caps_string(GST_VIDEO_FORMAT_BGR, bgr.cols, bgr.rows).c_str());
  return push_and_pull(h, make_frame(bgr, GST_VIDEO_FORMAT_BGR));
}

int count_metas(GstBuffer* buffer, GType api) {
  int count = 0;
  gpointer state = nullptr;
  while (gst_buffer_iterate_meta_filtered(buffer, &state, api))
    ++count;
  return count;
}

// The error the harness's elements posted, with its domain and code checked.
std::string error_text(GstHarness* h, GQuark domain, gint code) {
  auto errors = bus_messages(h, GST_MESSAGE_ERROR);
  std::string text;
  if (!errors.empty()) {
    GError* error = nullptr;
    gst_message_parse_error(errors[0], &error, nullptr);
    EXPECT_TRUE(g_error_matches(error, domain, code)) << error->message;
    text = error->message;
    g_clear_error(&error);
  }
  unref_all(&errors);
  return text;
}

TEST(KeypointMatcher, FindsTheReferenceInEveryPositiveSceneWithinTwoPixels) {
  const ReferenceFiles& files = ReferenceFiles::get();
  const std::vector<ObjectScene> scenes = positive_scenes();
  ASSERT_EQ(scenes.size(), 19u);
  GstHarness* h = find_harness(files.png(), "post-messages=true label=cat");
  double worst = 0.0;
  guint fewest_inliers = G_MAXUINT;
  for (const ObjectScene& scene : scenes) {
    GstBuffer* out = push_scene(h, scene.bgr);
    ASSERT_NE(out, nullptr) << scene.name;
    const MatcherReport report = last_matcher_report(h);
    GstKeypointsObjectMeta* meta = gst_buffer_get_keypoints_object_meta(out);
    ASSERT_NE(meta, nullptr) << scene.name << ": not found (" << report.reason << ", "
                             << report.matches << " matches, " << report.inliers << " inliers)";
    const double error = object_corner_error(meta, scene.homography, files.size());
    std::printf("positive %-36s %4u matches %4u inliers  corner error %.3f px\n",
                scene.name.c_str(), meta->matches, meta->inliers, error);
    EXPECT_LE(error, 2.0) << scene.name;
    worst = std::max(worst, error);
    fewest_inliers = std::min(fewest_inliers, meta->inliers);
    EXPECT_STREQ(gst_keypoints_object_meta_get_label(meta), "cat");
    EXPECT_EQ(meta->width, 640u);
    EXPECT_EQ(meta->height, 480u);
    EXPECT_EQ(meta->reference_width, static_cast<guint>(files.size().width));
    EXPECT_EQ(meta->reference_height, static_cast<guint>(files.size().height));
    EXPECT_TRUE(report.found);
    EXPECT_EQ(report.inliers, meta->inliers);
    EXPECT_EQ(count_metas(out, GST_KEYPOINTS_OBJECT_META_API_TYPE), 1);

    // The region of interest bounds the outline in whole pixels.
    ASSERT_EQ(count_metas(out, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE), 1);
    GstVideoRegionOfInterestMeta* roi = gst_buffer_get_video_region_of_interest_meta(out);
    EXPECT_STREQ(g_quark_to_string(roi->roi_type), "cat");
    for (int c = 0; c < 4; ++c) {
      EXPECT_GE(meta->corners[2 * c], roi->x) << scene.name;
      EXPECT_LE(meta->corners[2 * c], roi->x + roi->w - 1.0) << scene.name;
      EXPECT_GE(meta->corners[2 * c + 1], roi->y) << scene.name;
      EXPECT_LE(meta->corners[2 * c + 1], roi->y + roi->h - 1.0) << scene.name;
    }
    const GstStructure* param = gst_video_region_of_interest_meta_get_param(roi, "keypointmatcher");
    ASSERT_NE(param, nullptr);
    guint inliers = 0;
    EXPECT_TRUE(gst_structure_get_uint(param, "inliers", &inliers));
    EXPECT_EQ(inliers, meta->inliers);
    gst_buffer_unref(out);
  }
  std::printf("positives: worst corner error %.3f px, fewest inliers %u\n", worst, fewest_inliers);
  teardown_harness(h);
}

TEST(KeypointMatcher, FindsNothingInFiftyScenesWithoutTheReference) {
  const ReferenceFiles& files = ReferenceFiles::get();
  const std::vector<ObjectScene> scenes = negative_scenes(50);
  ASSERT_EQ(scenes.size(), 50u);
  GstHarness* h = find_harness(files.png(), "post-messages=true");
  int detections = 0;
  guint most_inliers = 0, most_matches = 0;
  for (const ObjectScene& scene : scenes) {
    GstBuffer* out = push_scene(h, scene.bgr);
    ASSERT_NE(out, nullptr) << scene.name;
    const MatcherReport report = last_matcher_report(h);
    if (gst_buffer_get_keypoints_object_meta(out) ||
        gst_buffer_get_video_region_of_interest_meta(out)) {
      ++detections;
      ADD_FAILURE() << "found in " << scene.name;
    }
    EXPECT_FALSE(report.found);
    most_inliers = std::max(most_inliers, report.inliers);
    most_matches = std::max(most_matches, report.matches);
    gst_buffer_unref(out);
  }
  std::printf("negatives: %d detections in %zu frames; at most %u matches and %u inliers in one\n",
              detections, scenes.size(), most_matches, most_inliers);
  EXPECT_EQ(detections, 0);
  teardown_harness(h);
}

// The same features as the image reference's, from a file: the same detections, bit for bit.
TEST(KeypointMatcher, FeaturesFileReferenceGivesTheImageReferencesDetections) {
  const ReferenceFiles& files = ReferenceFiles::get();
  const std::vector<ObjectScene> scenes = positive_scenes();
  ASSERT_FALSE(scenes.empty());
  GstHarness* from_image = find_harness(files.png());
  GstHarness* from_file = find_harness(files.sift_features());
  for (size_t i = 0; i < scenes.size(); i += 3) {
    GstBuffer* a = push_scene(from_image, scenes[i].bgr);
    GstBuffer* b = push_scene(from_file, scenes[i].bgr);
    ASSERT_TRUE(a && b);
    const GstKeypointsObjectMeta* ma = gst_buffer_get_keypoints_object_meta(a);
    const GstKeypointsObjectMeta* mb = gst_buffer_get_keypoints_object_meta(b);
    ASSERT_TRUE(ma && mb) << scenes[i].name;
    EXPECT_EQ(0, std::memcmp(ma->homography, mb->homography, sizeof(ma->homography)));
    EXPECT_EQ(0, std::memcmp(ma->corners, mb->corners, sizeof(ma->corners)));
    EXPECT_EQ(ma->inliers, mb->inliers);
    EXPECT_EQ(ma->matches, mb->matches);
    EXPECT_LE(object_corner_error(mb, scenes[i].homography, files.size()), 2.0);
    gst_buffer_unref(a);
    gst_buffer_unref(b);
  }
  teardown_harness(from_image);
  teardown_harness(from_file);
}

// An image reference follows the stream's method: SURF frames get a SURF reference.
TEST(KeypointMatcher, ImageReferenceTakesTheStreamsMethodAndParameters) {
  const ReferenceFiles& files = ReferenceFiles::get();
  const std::vector<ObjectScene> scenes = positive_scenes();
  ASSERT_FALSE(scenes.empty());
  GstHarness* h = find_harness(files.png(), "post-messages=true", "method=surf extended=true");
  GstBuffer* out = push_scene(h, scenes[1].bgr);
  ASSERT_NE(out, nullptr);
  const GstKeypointsMeta* keypoints = gst_buffer_get_keypoints_meta(out);
  ASSERT_NE(keypoints, nullptr);
  EXPECT_EQ(keypoints->method, GST_KEYPOINTS_METHOD_SURF);
  EXPECT_EQ(keypoints->descriptor_size, 128u);
  const GstKeypointsObjectMeta* meta = gst_buffer_get_keypoints_object_meta(out);
  ASSERT_NE(meta, nullptr);
  EXPECT_LE(object_corner_error(meta, scenes[1].homography, files.size()), 2.0);
  gst_buffer_unref(out);
  auto errors = bus_messages(h, GST_MESSAGE_ERROR);
  EXPECT_TRUE(errors.empty());
  unref_all(&errors);
  teardown_harness(h);
}

// The reference-keypoints field of the last message.
guint reference_keypoints(GstHarness* h) {
  guint count = 0;
  auto messages = bus_messages(h, GST_MESSAGE_ELEMENT);
  for (GstMessage* m : messages)
    gst_structure_get_uint(gst_message_get_structure(m), "reference-keypoints", &count);
  unref_all(&messages);
  return count;
}

int sift_keypoint_count(const SiftParams& params) {
  const cv::Mat gray = gray_seen_by_element(object_reference_bgr());
  return static_cast<int>(CpuSiftExtractor(params)
                              .extract(gray.data, gray.step, gray.cols, gray.rows)
                              .keypoints.size());
}

// gpusiftfilter's parameters reach the reference: a higher contrast threshold, fewer keypoints,
// exactly as many as the library finds with it.
TEST(KeypointMatcher, ImageReferenceTakesTheFiltersParameters) {
  const ReferenceFiles& files = ReferenceFiles::get();
  SiftParams params = video_sift_params();
  params.contrast_threshold = 0.08f;
  const int expected = sift_keypoint_count(params);
  params.contrast_threshold = 0.04f;
  ASSERT_LT(expected, sift_keypoint_count(params));
  GstHarness* h = find_harness(files.png(), "post-messages=true", "contrast-threshold=0.08");
  GstBuffer* out = push_scene(h, positive_scenes()[0].bgr);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(reference_keypoints(h), static_cast<guint>(expected));
  EXPECT_NE(gst_buffer_get_keypoints_object_meta(out), nullptr);
  gst_buffer_unref(out);
  teardown_harness(h);
}

// Keypoints from elsewhere (no gpusiftfilter to ask): gpusiftfilter's defaults with the meta's
// method and descriptor.
TEST(KeypointMatcher, WithoutGpusiftfilterUpstreamTheReferenceTakesItsDefaults) {
  const ReferenceFiles& files = ReferenceFiles::get();
  const ObjectScene scene = positive_scenes()[4];
  GstHarness* filter = gst_harness_new_parse("gpusiftfilter backend=cpu");
  GstBuffer* with_keypoints = push_scene(filter, scene.bgr);
  gst_harness_teardown(filter);
  ASSERT_NE(with_keypoints, nullptr);

  GstHarness* h =
      element_harness("keypointmatcher", "backend=cpu post-messages=true reference=" + files.png());
  gst_harness_set_src_caps_str(h, caps_string(GST_VIDEO_FORMAT_BGR, 640, 480).c_str());
  GstBuffer* out = push_and_pull(h, with_keypoints);
  ASSERT_NE(out, nullptr);
  const SiftParams defaults = video_sift_params();
  EXPECT_EQ(reference_keypoints(h), static_cast<guint>(sift_keypoint_count(defaults)));
  const GstKeypointsObjectMeta* meta = gst_buffer_get_keypoints_object_meta(out);
  ASSERT_NE(meta, nullptr);
  EXPECT_LE(object_corner_error(meta, scene.homography, files.size()), 2.0);
  gst_buffer_unref(out);
  teardown_harness(h);
}

// gpusiftfilter answers the query with its properties, for either method.
TEST(KeypointMatcher, GpusiftfilterAnswersTheFeatureSettingsQuery) {
  GstElement* filter = gst_element_factory_make("gpusiftfilter", nullptr);
  ASSERT_NE(filter, nullptr);
  GstPad* src = gst_element_get_static_pad(filter, "src");
  gst_util_set_object_arg(G_OBJECT(filter), "descriptor", "rootsift");
  g_object_set(filter, "contrast-threshold", 0.07, "sigma", 1.8, "upscale", TRUE, "nfeatures", 500,
               "n-octave-layers", 4, "edge-threshold", 12.0, "max-keypoints", 9000, "max-octaves",
               3, nullptr);
  gst_util_set_object_arg(G_OBJECT(filter), "distribution", "grid");
  GstQuery* query = gpusift::gst::feature_settings_query_new();
  ASSERT_TRUE(gst_pad_query(src, query));
  FeatureConfig config;
  ASSERT_TRUE(gpusift::gst::parse_feature_settings_query(query, &config));
  gst_query_unref(query);
  EXPECT_EQ(config.method, Method::kSift);
  EXPECT_EQ(config.sift.descriptor, DescriptorFormat::kRootSift);
  EXPECT_FLOAT_EQ(config.sift.contrast_threshold, 0.07f);
  EXPECT_FLOAT_EQ(config.sift.sigma, 1.8f);
  EXPECT_FLOAT_EQ(config.sift.edge_threshold, 12.0f);
  EXPECT_TRUE(config.sift.upscale);
  EXPECT_EQ(config.sift.nfeatures, 500);
  EXPECT_EQ(config.sift.distribution, KeypointDistribution::kGrid);
  EXPECT_EQ(config.sift.n_octave_layers, 4);
  EXPECT_EQ(config.sift.max_keypoints, 9000);
  EXPECT_EQ(config.sift.max_octaves, 3);

  gst_util_set_object_arg(G_OBJECT(filter), "method", "surf");
  gst_util_set_object_arg(G_OBJECT(filter), "descriptor", "float");
  g_object_set(filter, "hessian-threshold", 250.0, "n-octaves", 3, "extended", TRUE, "upright",
               TRUE, nullptr);
  query = gpusift::gst::feature_settings_query_new();
  ASSERT_TRUE(gst_pad_query(src, query));
  ASSERT_TRUE(gpusift::gst::parse_feature_settings_query(query, &config));
  gst_query_unref(query);
  EXPECT_EQ(config.method, Method::kSurf);
  EXPECT_EQ(config.surf.descriptor, DescriptorFormat::kFloat);
  EXPECT_DOUBLE_EQ(config.surf.hessian_threshold, 250.0);
  EXPECT_EQ(config.surf.n_octaves, 3);
  EXPECT_TRUE(config.surf.extended);
  EXPECT_TRUE(config.surf.upright);
  EXPECT_EQ(config.surf.nfeatures, 500);
  EXPECT_EQ(config.surf.distribution, KeypointDistribution::kGrid);

  // Unanswered, the query parses as nothing.
  query = gpusift::gst::feature_settings_query_new();
  EXPECT_FALSE(gpusift::gst::parse_feature_settings_query(query, &config));
  gst_query_unref(query);
  gst_object_unref(src);
  gst_object_unref(filter);
}

TEST(KeypointMatcher, FeaturesFileOfAnotherMethodFailsWithAClearError) {
  const ReferenceFiles& files = ReferenceFiles::get();
  GstHarness* h = find_harness(files.surf_features());
  const cv::Mat scene = positive_scenes()[0].bgr;
  gst_harness_set_src_caps_str(h,
                               caps_string(GST_VIDEO_FORMAT_BGR, scene.cols, scene.rows).c_str());
  EXPECT_EQ(gst_harness_push(h, make_frame(scene, GST_VIDEO_FORMAT_BGR)), GST_FLOW_ERROR);
  const std::string text = error_text(h, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT);
  EXPECT_NE(text.find("do not match the stream"), std::string::npos) << text;
  teardown_harness(h);
}

// Every unusable reference fails the change to PAUSED with an error naming the file.
struct BadReference {
  const char* name;
  std::string path;
  gint code;  // GST_RESOURCE_ERROR_*
  const char* says;
  const char* cause = "";  // a part of the error's debug text, where the cause matters
};

// `bytes` with the little-endian uint32 at `offset` set to `value`.
std::string with_u32(std::string bytes, size_t offset, uint32_t value) {
  std::memcpy(&bytes[offset], &value, sizeof value);
  return bytes;
}

std::string file_contents(const std::string& path) {
  gchar* data = nullptr;
  gsize length = 0;
  g_file_get_contents(path.c_str(), &data, &length, nullptr);
  std::string bytes(data ? data : "", length);
  g_free(data);
  return bytes;
}

void set_file_contents(const std::string& path, const std::string& bytes) {
  g_file_set_contents(path.c_str(), bytes.data(), static_cast<gssize>(bytes.size()), nullptr);
}

std::vector<BadReference> bad_references() {
  const ReferenceFiles& files = ReferenceFiles::get();
  const std::string text = files.scratch("notes.txt");
  g_file_set_contents(text.c_str(), "not an image\n", -1, nullptr);
  const std::string truncated = files.scratch("truncated.gpsf");
  gchar* features = nullptr;
  gsize length = 0;
  g_file_get_contents(files.sift_features().c_str(), &features, &length, nullptr);
  g_file_set_contents(truncated.c_str(), features, static_cast<gssize>(length / 2), nullptr);
  g_free(features);
  const std::string empty_features = files.scratch("empty.gpsf");
  FeaturesFileWriter(empty_features).close();
  // The reference's valid file, its first record's width (at byte 16 + 16) changed: the writer
  // refuses a width of 0, so these are made by hand.
  const std::string valid = file_contents(files.sift_features());
  const std::string sizeless = files.scratch("sizeless.gpsf");
  set_file_contents(sizeless, with_u32(valid, 32, 0));
  const std::string too_wide = files.scratch("too-wide.gpsf");
  set_file_contents(too_wide, with_u32(valid, 32, 4294967295u));
  // A first record whose keypoint count is one short: it reads as a whole record of shifted
  // descriptors, and what follows it is no record.
  uint32_t n_keypoints = 0;
  std::memcpy(&n_keypoints, valid.data() + 16 + 36, sizeof n_keypoints);
  const std::string misaligned = files.scratch("misaligned.gpsf");
  set_file_contents(misaligned, with_u32(valid, 16 + 36, n_keypoints - 1));
  // A whole first record and 7 bytes after it.
  const std::string trailing = files.scratch("trailing.gpsf");
  set_file_contents(trailing, valid + "KPTS\1\0\0");
  return {
      {"missing", files.scratch("missing.png"), GST_RESOURCE_ERROR_NOT_FOUND, "Cannot find"},
      {"none", "", GST_RESOURCE_ERROR_NOT_FOUND, "No reference"},
      {"folder", files.scratch(""), GST_RESOURCE_ERROR_OPEN_READ, "is not a file"},
      {"text", text, GST_RESOURCE_ERROR_OPEN_READ, "Cannot decode the reference image"},
      {"truncated features", truncated, GST_RESOURCE_ERROR_OPEN_READ,
       "Cannot use the reference features file"},
      {"features without frames", empty_features, GST_RESOURCE_ERROR_OPEN_READ,
       "Cannot use the reference features file"},
      {"features without a size", sizeless, GST_RESOURCE_ERROR_OPEN_READ,
       "Cannot use the reference features file", "frame size 0x"},
      {"features 4294967295 wide", too_wide, GST_RESOURCE_ERROR_OPEN_READ,
       "Cannot use the reference features file", "frame size 4294967295x"},
      {"misaligned features", misaligned, GST_RESOURCE_ERROR_OPEN_READ,
       "Cannot use the reference features file", "has no KPTS tag"},
      {"features and 7 bytes", trailing, GST_RESOURCE_ERROR_OPEN_READ,
       "Cannot use the reference features file", "its record header needs 40 bytes"},
  };
}

TEST(KeypointMatcher, AnUnreadableReferenceFailsTheStateChangeWithAClearError) {
  for (const BadReference& bad : bad_references()) {
    GstElement* pipeline = gst_parse_launch(
        "videotestsrc num-buffers=2 ! gpusiftfilter backend=cpu ! keypointmatcher name=m "
        "backend=cpu ! fakesink",
        nullptr);
    ASSERT_NE(pipeline, nullptr);
    GstElement* matcher = gst_bin_get_by_name(GST_BIN(pipeline), "m");
    g_object_set(matcher, "reference", bad.path.empty() ? nullptr : bad.path.c_str(), nullptr);
    gst_object_unref(matcher);
    EXPECT_EQ(gst_element_set_state(pipeline, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE)
        << bad.name;
    GstBus* bus = gst_element_get_bus(pipeline);
    GstMessage* message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
    ASSERT_NE(message, nullptr) << bad.name;
    GError* error = nullptr;
    gchar* debug = nullptr;
    gst_message_parse_error(message, &error, &debug);
    EXPECT_TRUE(g_error_matches(error, GST_RESOURCE_ERROR, bad.code)) << bad.name;
    EXPECT_NE(std::string(error->message).find(bad.says), std::string::npos)
        << bad.name << ": " << error->message;
    if (!bad.path.empty()) {
      EXPECT_NE(std::string(error->message).find(bad.path), std::string::npos) << error->message;
    }
    const std::string details = debug ? debug : "";
    EXPECT_NE(details.find(bad.cause), std::string::npos) << bad.name << ": " << details;
    std::printf("%-24s %s (%s)\n", bad.name, error->message, debug ? debug : "");
    g_clear_error(&error);
    g_free(debug);
    gst_message_unref(message);
    gst_bus_set_flushing(bus, TRUE);
    gst_object_unref(bus);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(pipeline);
  }
}

// Buffers without the meta pass as they came (same memory, nothing added) with one warning for
// the stream.
TEST(KeypointMatcher, BuffersWithoutKeypointsPassThroughWithOneWarning) {
  GstHarness* h =
      element_harness("keypointmatcher", "backend=cpu reference=" + ReferenceFiles::get().png());
  gst_harness_set_src_caps_str(h, caps_string(GST_VIDEO_FORMAT_GRAY8, 64, 48).c_str());
  for (int i = 0; i < 4; ++i) {
    GstBuffer* in = gst_buffer_new_allocate(nullptr, 64 * 48, nullptr);
    gst_buffer_memset(in, 0, static_cast<guint8>(i), 64 * 48);
    GstMemory* memory = gst_buffer_peek_memory(in, 0);
    GstBuffer* out = push_and_pull(h, in);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(gst_buffer_peek_memory(out, 0), memory);
    EXPECT_EQ(gst_buffer_get_keypoints_object_meta(out), nullptr);
    EXPECT_EQ(gst_buffer_get_video_region_of_interest_meta(out), nullptr);
    gst_buffer_unref(out);
  }
  auto warnings = bus_messages(h, GST_MESSAGE_WARNING);
  ASSERT_EQ(warnings.size(), 1u);
  GError* error = nullptr;
  gst_message_parse_warning(warnings[0], &error, nullptr);
  EXPECT_TRUE(g_error_matches(error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT));
  EXPECT_NE(std::string(error->message).find("No keypoints"), std::string::npos);
  g_clear_error(&error);
  unref_all(&warnings);
  auto errors = bus_messages(h, GST_MESSAGE_ERROR);
  EXPECT_TRUE(errors.empty());
  unref_all(&errors);
  teardown_harness(h);
}

TEST(KeypointMatcher, KeypointsWithoutDescriptorsPassThroughWithOneWarning) {
  const ReferenceFiles& files = ReferenceFiles::get();
  GstHarness* h = find_harness(files.png(), "", "descriptor=none");
  for (int i = 0; i < 3; ++i) {
    GstBuffer* out = push_scene(h, positive_scenes()[0].bgr);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(gst_buffer_get_keypoints_object_meta(out), nullptr);
    gst_buffer_unref(out);
  }
  auto warnings = bus_messages(h, GST_MESSAGE_WARNING);
  EXPECT_EQ(warnings.size(), 1u);
  unref_all(&warnings);
  teardown_harness(h);
}

// A new frame size mid-stream: the reference's features stay, the region follows the frame.
TEST(KeypointMatcher, KeepsFindingAcrossACapsChange) {
  const ReferenceFiles& files = ReferenceFiles::get();
  const std::vector<ObjectScene> scenes = positive_scenes();
  ASSERT_FALSE(scenes.empty());
  GstHarness* h = find_harness(files.png());
  const ObjectScene& scene = scenes[1];
  const double factor = 0.75;
  cv::Mat smaller;
  cv::resize(scene.bgr, smaller, cv::Size(), factor, factor, cv::INTER_AREA);
  // Pixel centres: x' + 0.5 = (x + 0.5) * factor.
  const cv::Matx33d shrink(factor, 0, 0.5 * factor - 0.5, 0, factor, 0.5 * factor - 0.5, 0, 0, 1);
  for (int round = 0; round < 2; ++round) {
    GstBuffer* big = push_scene(h, scene.bgr);
    GstBuffer* small = push_scene(h, smaller);
    ASSERT_TRUE(big && small);
    const GstKeypointsObjectMeta* a = gst_buffer_get_keypoints_object_meta(big);
    const GstKeypointsObjectMeta* b = gst_buffer_get_keypoints_object_meta(small);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(b->width, static_cast<guint>(smaller.cols));
    EXPECT_LE(object_corner_error(a, scene.homography, files.size()), 2.0);
    EXPECT_LE(object_corner_error(b, shrink * scene.homography, files.size()), 2.0);
    const GstVideoRegionOfInterestMeta* roi = gst_buffer_get_video_region_of_interest_meta(small);
    ASSERT_NE(roi, nullptr);
    EXPECT_LE(roi->x + roi->w, static_cast<guint>(smaller.cols));
    EXPECT_LE(roi->y + roi->h, static_cast<guint>(smaller.rows));
    gst_buffer_unref(big);
    gst_buffer_unref(small);
  }
  teardown_harness(h);
}

TEST(KeypointMatcher, MessagesCarryTheDetectionAndWhyNothingWasFound) {
  const ReferenceFiles& files = ReferenceFiles::get();
  GstHarness* h = find_harness(files.png(), "post-messages=true label=cat");
  GstBuffer* in = make_frame(positive_scenes()[2].bgr, GST_VIDEO_FORMAT_BGR);
  GST_BUFFER_PTS(in) = 40 * GST_MSECOND;
  gst_harness_set_src_caps_str(h, caps_string(GST_VIDEO_FORMAT_BGR, 640, 480).c_str());
  GstBuffer* found = push_and_pull(h, in);
  ASSERT_NE(found, nullptr);
  const GstKeypointsObjectMeta* meta = gst_buffer_get_keypoints_object_meta(found);
  ASSERT_NE(meta, nullptr);
  auto messages = bus_messages(h, GST_MESSAGE_ELEMENT);
  ASSERT_EQ(messages.size(), 1u);
  const GstStructure* s = gst_message_get_structure(messages[0]);
  EXPECT_TRUE(gst_structure_has_name(s, "keypointmatcher"));
  EXPECT_STREQ(gst_structure_get_string(s, "label"), "cat");
  guint64 timestamp = 0;
  EXPECT_TRUE(gst_structure_get_uint64(s, "timestamp", &timestamp));
  EXPECT_EQ(timestamp, 40 * GST_MSECOND);
  guint inliers = 0, matches = 0, keypoints = 0, reference_keypoints = 0;
  EXPECT_TRUE(gst_structure_get_uint(s, "inliers", &inliers));
  EXPECT_TRUE(gst_structure_get_uint(s, "matches", &matches));
  EXPECT_TRUE(gst_structure_get_uint(s, "keypoints", &keypoints));
  EXPECT_TRUE(gst_structure_get_uint(s, "reference-keypoints", &reference_keypoints));
  EXPECT_EQ(inliers, meta->inliers);
  EXPECT_EQ(matches, meta->matches);
  EXPECT_EQ(keypoints, gst_buffer_get_keypoints_meta(found)->n_keypoints);
  EXPECT_GE(reference_keypoints, matches);
  const GValue* corners = gst_structure_get_value(s, "corners");
  const GValue* homography = gst_structure_get_value(s, "homography");
  ASSERT_TRUE(corners && homography);
  ASSERT_EQ(gst_value_array_get_size(corners), 8u);
  ASSERT_EQ(gst_value_array_get_size(homography), 9u);
  for (guint i = 0; i < 8; ++i)
    EXPECT_EQ(g_value_get_double(gst_value_array_get_value(corners, i)), meta->corners[i]);
  for (guint i = 0; i < 9; ++i)
    EXPECT_EQ(g_value_get_double(gst_value_array_get_value(homography, i)), meta->homography[i]);
  unref_all(&messages);
  gst_buffer_unref(found);

  GstBuffer* empty = push_scene(h, negative_scenes(1)[0].bgr);
  ASSERT_NE(empty, nullptr);
  messages = bus_messages(h, GST_MESSAGE_ELEMENT);
  ASSERT_EQ(messages.size(), 1u);
  s = gst_message_get_structure(messages[0]);
  gboolean was_found = TRUE;
  EXPECT_TRUE(gst_structure_get_boolean(s, "found", &was_found));
  EXPECT_FALSE(was_found);
  EXPECT_NE(gst_structure_get_string(s, "reason"), nullptr);
  EXPECT_FALSE(gst_structure_has_field(s, "corners"));
  unref_all(&messages);
  gst_buffer_unref(empty);
  teardown_harness(h);
}

// Two matchers in a row, one per object: each adds its own meta and region.
TEST(KeypointMatcher, MatchersInARowAddOneDetectionEach) {
  const ReferenceFiles& files = ReferenceFiles::get();
  const std::string description =
      "gpusiftfilter backend=cpu ! keypointmatcher backend=cpu "
      "label=first reference=\"" +
      files.png() + "\" ! keypointmatcher backend=cpu label=second reference=\"" +
      files.sift_features() + "\"";
  GstHarness* h = gst_harness_new_parse(description.c_str());
  GstBuffer* out = push_scene(h, positive_scenes()[3].bgr);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(count_metas(out, GST_KEYPOINTS_OBJECT_META_API_TYPE), 2);
  EXPECT_EQ(count_metas(out, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE), 2);
  const GstKeypointsObjectMeta* first = gst_buffer_get_keypoints_object_meta_by_label(out, "first");
  const GstKeypointsObjectMeta* second =
      gst_buffer_get_keypoints_object_meta_by_label(out, "second");
  ASSERT_TRUE(first && second);
  EXPECT_NE(first, second);
  EXPECT_EQ(gst_buffer_get_keypoints_object_meta_by_label(out, "third"), nullptr);
  gst_buffer_unref(out);
  gst_harness_teardown(h);
}

// Runs a command; its exit status (0 for success) and its output.
int run_command(const std::vector<std::string>& args, std::string* out, std::string* err) {
  std::vector<gchar*> argv;
  for (const std::string& a : args)
    argv.push_back(const_cast<gchar*>(a.c_str()));
  argv.push_back(nullptr);
  gchar* standard_output = nullptr;
  gchar* standard_error = nullptr;
  gint status = 0;
  GError* error = nullptr;
  if (!g_spawn_sync(nullptr, argv.data(), nullptr, G_SPAWN_DEFAULT, nullptr, nullptr,
                    &standard_output, &standard_error, &status, &error)) {
    ADD_FAILURE() << error->message;
    g_clear_error(&error);
    return -1;
  }
  *out = standard_output ? standard_output : "";
  *err = standard_error ? standard_error : "";
  g_free(standard_output);
  g_free(standard_error);
  const bool ok = g_spawn_check_wait_status(status, nullptr);
  return ok ? 0 : (status ? status : -1);
}

// pipelines/find-object.sh on a still scene: a message saying the object was found, an MP4 with
// its outline; a missing reference ends it with the element's error.
TEST(KeypointMatcher, FindObjectExampleFindsTheReferenceAndFailsOnAMissingOne) {
  const char* script = g_getenv("GPUSIFT_FIND_OBJECT_EXAMPLE");
  if (!script)
    GTEST_SKIP() << "GPUSIFT_FIND_OBJECT_EXAMPLE is not set (meson test sets it)";
  // tools/scripts/setup.sh installs x264enc: without it the example cannot run, which is a
  // failure of the setup, not a reason to skip.
  GstElementFactory* x264 = gst_element_factory_find("x264enc");
  ASSERT_NE(x264, nullptr) << "x264enc (gstreamer1.0-plugins-ugly) is not installed";
  gst_object_unref(x264);
  const ReferenceFiles& files = ReferenceFiles::get();
  const std::string scene = files.scratch("example-scene.png");
  const std::string video = files.scratch("example.mp4");
  ASSERT_TRUE(write_png(positive_scenes()[9].bgr, scene));
  std::string out, err;
  EXPECT_EQ(run_command({script, scene, files.png(), video, "cat"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("found=(boolean)true"), std::string::npos) << out << err;
  EXPECT_NE(out.find("label=(string)cat"), std::string::npos) << out;
  GStatBuf status;
  ASSERT_EQ(g_stat(video.c_str(), &status), 0);
  EXPECT_GT(status.st_size, 0);

  EXPECT_NE(run_command({script, scene, files.scratch("missing.png")}, &out, &err), 0);
  EXPECT_NE(err.find("Cannot find the reference"), std::string::npos) << err;
}

TEST(KeypointMatcher, PropertiesHaveTheirDefaults) {
  GstElement* matcher = gst_element_factory_make("keypointmatcher", nullptr);
  ASSERT_NE(matcher, nullptr);
  gchar* reference = nullptr;
  gchar* label = nullptr;
  gint min_inliers = 0, iterations = 0, device = 0;
  gdouble ratio = 0.0, threshold = 0.0;
  gboolean post = TRUE;
  g_object_get(matcher, "reference", &reference, "label", &label, "min-inliers", &min_inliers,
               "ransac-iterations", &iterations, "cuda-device-id", &device, "ratio", &ratio,
               "ransac-threshold", &threshold, "post-messages", &post, nullptr);
  EXPECT_EQ(reference, nullptr);
  EXPECT_STREQ(label, "object");
  EXPECT_EQ(min_inliers, 12);
  EXPECT_EQ(iterations, 2000);
  EXPECT_EQ(device, -1);
  EXPECT_FLOAT_EQ(static_cast<float>(ratio), 0.8f);
  EXPECT_DOUBLE_EQ(threshold, 3.0);
  EXPECT_FALSE(post);
  g_free(reference);
  g_free(label);
  g_object_set(matcher, "label", "", nullptr);  // no ROI without a type
  g_object_get(matcher, "label", &label, nullptr);
  EXPECT_STREQ(label, "object");
  g_free(label);
  gst_object_unref(matcher);
}

TEST(KeypointMatcher, CudaBackendWithoutAGpuFailsToStart) {
  if (cuda_device_count() > 0)
    GTEST_SKIP() << "a GPU is present: the GPU suite covers the CUDA backend";
  const std::string description =
      "videotestsrc num-buffers=2 ! gpusiftfilter backend=cpu ! keypointmatcher backend=cuda "
      "reference=\"" +
      ReferenceFiles::get().png() + "\" ! fakesink";
  GstElement* pipeline = gst_parse_launch(description.c_str(), nullptr);
  ASSERT_NE(pipeline, nullptr);
  EXPECT_EQ(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  GstBus* bus = gst_element_get_bus(pipeline);
  GstMessage* message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  ASSERT_NE(message, nullptr);
  GError* error = nullptr;
  gst_message_parse_error(message, &error, nullptr);
  EXPECT_TRUE(g_error_matches(error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND));
  g_clear_error(&error);
  gst_message_unref(message);
  gst_bus_set_flushing(bus, TRUE);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

// Objects of each type created minus those destroyed between two checkpoints of the leaks
// tracer's activity tracking, which lists type names and addresses only. (Its list of live
// objects would take references to them all, and dropping those disposes the typefind factories
// that the reference's decodebin loaded: criticals, then a crash in gst_deinit.)
class ObjectActivity {
 public:
  ObjectActivity() {
    GList* tracers = gst_tracing_get_active_tracers();
    for (GList* t = tracers; t; t = t->next) {
      if (g_strcmp0(G_OBJECT_TYPE_NAME(t->data), "GstLeaksTracer") == 0)
        tracer_ = GST_OBJECT(gst_object_ref(t->data));
    }
    g_list_free_full(tracers, gst_object_unref);
    if (tracer_) {
      g_signal_emit_by_name(tracer_, "activity-start-tracking");
      net_since_last_checkpoint();
    }
  }
  ~ObjectActivity() {
    if (tracer_) {
      g_signal_emit_by_name(tracer_, "activity-stop-tracking");
      gst_object_unref(tracer_);
    }
  }
  ObjectActivity(const ObjectActivity&) = delete;
  ObjectActivity& operator=(const ObjectActivity&) = delete;

  bool active() const { return tracer_ != nullptr; }

  // Per type name; waits for every task thread first, whose last references may still be held.
  std::map<std::string, int> net_since_last_checkpoint() {
    gst_task_cleanup_all();
    std::map<std::string, int> net;
    GstStructure* checkpoint = nullptr;
    g_signal_emit_by_name(tracer_, "activity-get-checkpoint", &checkpoint);
    count(gst_structure_get_value(checkpoint, "objects-created-list"), +1, &net);
    count(gst_structure_get_value(checkpoint, "objects-removed-list"), -1, &net);
    gst_structure_free(checkpoint);
    return net;
  }

 private:
  static void count(const GValue* list, int sign, std::map<std::string, int>* net) {
    for (guint i = 0; i < gst_value_list_get_size(list); ++i) {
      const GstStructure* entry = gst_value_get_structure(gst_value_list_get_value(list, i));
      (*net)[gst_structure_get_string(entry, "type-name")] += sign;
    }
  }

  GstObject* tracer_ = nullptr;
};

// Plays a file through gpusiftfilter and keypointmatcher to its end, flushing mid-stream when
// asked; with a missing reference the start must fail instead.
void run_pipeline(const std::string& scene, const std::string& reference, bool fails, bool flush) {
  const std::string description =
      "filesrc location=\"" + scene + "\" ! pngdec ! imagefreeze num-buffers=3 ! videoconvert ! " +
      "gpusiftfilter backend=cpu ! keypointmatcher backend=cpu reference=\"" + reference +
      "\" ! fakesink sync=false";
  GstElement* pipeline = gst_parse_launch(description.c_str(), nullptr);
  ASSERT_NE(pipeline, nullptr);
  GstBus* bus = gst_element_get_bus(pipeline);
  if (fails) {
    EXPECT_EQ(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  } else {
    ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    if (flush) {
      gst_element_get_state(pipeline, nullptr, nullptr, GST_CLOCK_TIME_NONE);
      gst_element_seek_simple(pipeline, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH, 0);
    }
    GstMessage* end = gst_bus_timed_pop_filtered(
        bus, 60 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    ASSERT_NE(end, nullptr);
    EXPECT_EQ(GST_MESSAGE_TYPE(end), GST_MESSAGE_EOS);
    gst_message_unref(end);
  }
  gst_bus_set_flushing(bus, TRUE);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

// Playing to the end, flushing and failing to start, over and over: no element, buffer or
// pipeline (the reference's decoding pipeline included) stays alive.
TEST(KeypointMatcher, StateCyclesWithEosFlushAndFailuresLeakNothing) {
  const ReferenceFiles& files = ReferenceFiles::get();
  const std::string scene = files.scratch("scene.png");
  ASSERT_TRUE(write_png(positive_scenes()[0].bgr, scene));
  const std::string missing = files.scratch("missing.png");
  ObjectActivity activity;
  ASSERT_TRUE(activity.active()) << "the leaks tracer is not active";
  // A first run loads what stays loaded (plugins, typefinders, cached caps).
  run_pipeline(scene, files.png(), false, false);
  run_pipeline(scene, missing, true, false);
  activity.net_since_last_checkpoint();
  for (int cycle = 0; cycle < 12; ++cycle)
    run_pipeline(scene, cycle % 3 == 2 ? missing : files.png(), cycle % 3 == 2, cycle % 3 == 1);
  std::map<std::string, int> net = activity.net_since_last_checkpoint();
  for (const char* type : {"GstKeypointMatcher", "GstGpusiftFilter", "GstBuffer", "GstPipeline",
                           "GstDecodeBin", "GstAppSink", "GstSample", "GstMessage"})
    EXPECT_EQ(net[type], 0) << type;
}

}  // namespace
}  // namespace gpusift::testing
