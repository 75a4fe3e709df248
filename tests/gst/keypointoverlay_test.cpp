// SPDX-License-Identifier: LGPL-2.1-or-later
/* keypointoverlay: what it draws where, on every supported format, and what it refuses. */
#include <gst/check/gstharness.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/keypoints/gstkeypointsobjectmeta.h>
#include <gst/keypoints/gstkeypointstracksmeta.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gst_test_support.h"
#include "keypointoverlay/gstkeypointoverlay.h"
#include "keypointoverlay/keypoint_trails.h"

namespace {

constexpr int kWidth = 64;
constexpr int kHeight = 48;
constexpr guint8 kBackground = 0x40;

GstKeypoint keypoint(float x, float y, float size, float angle, float response = 1.0f) {
  return GstKeypoint{x, y, size, angle, response, 0, -1};
}

void add_keypoints(GstBuffer* buffer, guint width, guint height,
                   const std::vector<GstKeypoint>& keypoints) {
  ASSERT_NE(gst_buffer_add_keypoints_meta(buffer, GST_KEYPOINTS_METHOD_SIFT, width, height,
                                          keypoints.data(), static_cast<guint>(keypoints.size()),
                                          GST_KEYPOINTS_DESCRIPTOR_NONE, 0, nullptr),
            nullptr);
}

/* Component values (R, G, B[, A] or Y, U, V) of the sample covering pixel (x, y). */
std::vector<int> components_at(GstBuffer* buffer, GstVideoFormat format, int width, int height,
                               int x, int y) {
  GstVideoInfo info = gst_test::video_info(format, width, height);
  GstVideoFrame frame;
  std::vector<int> values;
  if (!gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ)) {
    ADD_FAILURE() << "cannot map the frame";
    return values;
  }
  for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS(&frame); c++) {
    const int sx = x >> GST_VIDEO_FORMAT_INFO_W_SUB(info.finfo, c);
    const int sy = y >> GST_VIDEO_FORMAT_INFO_H_SUB(info.finfo, c);
    const guint8* sample = GST_VIDEO_FRAME_COMP_DATA(&frame, c) +
                           sy * GST_VIDEO_FRAME_COMP_STRIDE(&frame, c) +
                           sx * GST_VIDEO_FRAME_COMP_PSTRIDE(&frame, c);
    values.push_back(*sample);
  }
  gst_video_frame_unmap(&frame);
  return values;
}

bool is_yuv(GstVideoFormat format) {
  return GST_VIDEO_FORMAT_INFO_IS_YUV(gst_video_format_get_info(format));
}

/* The default colour, opaque green, as each format stores it (BT.601 limited range for YUV). */
std::vector<int> green(GstVideoFormat format) {
  if (is_yuv(format)) {
    return {145, 54, 34};
  }
  if (GST_VIDEO_FORMAT_INFO_HAS_ALPHA(gst_video_format_get_info(format))) {
    return {0, 255, 0, 255};
  }
  return {0, 255, 0};
}

std::vector<int> background(GstVideoFormat format) {
  return std::vector<int>(green(format).size(), kBackground);
}

/* A harness around one keypointoverlay with fixed caps. */
class Overlay {
 public:
  Overlay(GstVideoFormat format, int width, int height)
      : format_(format), width_(width), height_(height) {
    harness_ = gst_harness_new("keypointoverlay");
    gst_harness_set_src_caps_str(harness_, gst_test::caps_string(format, width, height).c_str());
  }
  ~Overlay() { gst_harness_teardown(harness_); }
  Overlay(const Overlay&) = delete;
  Overlay& operator=(const Overlay&) = delete;

  GObject* element() const { return G_OBJECT(harness_->element); }

  /* Draws the keypoints (in frame coordinates) on a background frame; returns it. */
  GstBuffer* draw(const std::vector<GstKeypoint>& keypoints) {
    return draw_in_space(keypoints, static_cast<guint>(width_), static_cast<guint>(height_));
  }

  GstBuffer* draw_in_space(const std::vector<GstKeypoint>& keypoints, guint meta_width,
                           guint meta_height) {
    GstBuffer* input = gst_test::make_video_buffer(format_, width_, height_, kBackground);
    add_keypoints(input, meta_width, meta_height, keypoints);
    return process(input);
  }

  GstBuffer* process(GstBuffer* input) {
    EXPECT_EQ(gst_harness_push(harness_, input), GST_FLOW_OK);
    return gst_harness_try_pull(harness_);
  }

  std::vector<int> at(GstBuffer* buffer, int x, int y) const {
    return components_at(buffer, format_, width_, height_, x, y);
  }

 private:
  GstHarness* harness_;
  GstVideoFormat format_;
  int width_;
  int height_;
};

class OverlayFormat : public testing::TestWithParam<GstVideoFormat> {};

TEST_P(OverlayFormat, CircleRimGetsTheColourAndItsInsideStays) {
  const GstVideoFormat format = GetParam();
  Overlay overlay(format, kWidth, kHeight);
  GstBuffer* output = overlay.draw({keypoint(32, 24, 20, -1)});
  ASSERT_NE(output, nullptr);
  for (const auto& [x, y] :
       std::vector<std::array<int, 2>>{{42, 24}, {22, 24}, {32, 14}, {32, 34}}) {
    EXPECT_EQ(overlay.at(output, x, y), green(format)) << x << "," << y;
  }
  for (const auto& [x, y] : std::vector<std::array<int, 2>>{{32, 24}, {36, 24}, {2, 2}, {60, 44}}) {
    EXPECT_EQ(overlay.at(output, x, y), background(format)) << x << "," << y;
  }
  gst_buffer_unref(output);
}

TEST_P(OverlayFormat, FramesWithoutTheMetaPassUnchanged) {
  const GstVideoFormat format = GetParam();
  Overlay overlay(format, kWidth, kHeight);
  GstBuffer* input = gst_test::make_video_buffer(format, kWidth, kHeight, 0);
  GstMapInfo map;
  ASSERT_TRUE(gst_buffer_map(input, &map, GST_MAP_WRITE));
  for (gsize i = 0; i < map.size; i++) {
    map.data[i] = static_cast<guint8>(i * 7);
  }
  gst_buffer_unmap(input, &map);
  GstBuffer* expected = gst_buffer_copy_deep(input);

  GstBuffer* output = overlay.process(input);
  ASSERT_NE(output, nullptr);
  GstMapInfo out_map, expected_map;
  ASSERT_TRUE(gst_buffer_map(output, &out_map, GST_MAP_READ));
  ASSERT_TRUE(gst_buffer_map(expected, &expected_map, GST_MAP_READ));
  ASSERT_EQ(out_map.size, expected_map.size);
  EXPECT_EQ(std::memcmp(out_map.data, expected_map.data, out_map.size), 0);
  gst_buffer_unmap(expected, &expected_map);
  gst_buffer_unmap(output, &out_map);
  gst_buffer_unref(expected);
  gst_buffer_unref(output);
}

TEST_P(OverlayFormat, TinyOddAndHostileInputDoesNotCrash) {
  const GstVideoFormat format = GetParam();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<GstKeypoint> keypoints = {
      keypoint(0, 0, 3, 30),    keypoint(-5, -5, 100, 10),
      keypoint(1e30f, 5, 4, 0), keypoint(nan, 1, 2, 0),
      keypoint(3, 2, 0, 90),    keypoint(2, 2, 1e30f, 45),
      keypoint(3, 2, -4, 0),    keypoint(1, 1, inf, 0),
      keypoint(1, 1, 5, nan),   keypoint(-1e30f, -1e30f, 1e30f, 225),
  };
  for (const auto& [width, height] :
       std::vector<std::array<int, 2>>{{1, 1}, {7, 5}, {2, 3}, {3, 1}, {1, 4}}) {
    Overlay overlay(format, width, height);
    GstBuffer* output = overlay.draw(keypoints);
    ASSERT_NE(output, nullptr) << width << "x" << height;
    const GstVideoInfo info = gst_test::video_info(format, width, height);
    EXPECT_EQ(gst_buffer_get_size(output), GST_VIDEO_INFO_SIZE(&info));
    gst_buffer_unref(output);
  }
}

TEST_P(OverlayFormat, DotOnTheLastOddColumnColoursItsPartialChromaBlock) {
  const GstVideoFormat format = GetParam();
  Overlay overlay(format, 7, 5);
  GstBuffer* output = overlay.draw({keypoint(6, 4, 0, -1)});
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(overlay.at(output, 6, 4), green(format));
  EXPECT_EQ(overlay.at(output, 0, 0), background(format));
  gst_buffer_unref(output);
}

INSTANTIATE_TEST_SUITE_P(AllFormats, OverlayFormat,
                         testing::Values(GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA,
                                         GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
                                         GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12),
                         [](const testing::TestParamInfo<GstVideoFormat>& info) {
                           return std::string(gst_video_format_to_string(info.param));
                         });

TEST(KeypointOverlay, OrientationFollowsTheAngleWithYPointingDown) {
  const auto rgba = GST_VIDEO_FORMAT_RGBA;
  Overlay overlay(rgba, kWidth, kHeight);
  GstBuffer* down = overlay.draw({keypoint(32, 24, 20, 90)});
  EXPECT_EQ(overlay.at(down, 32, 29), green(rgba));
  EXPECT_EQ(overlay.at(down, 32, 24), green(rgba));
  EXPECT_EQ(overlay.at(down, 32, 19), background(rgba));
  gst_buffer_unref(down);

  GstBuffer* right = overlay.draw({keypoint(32, 24, 20, 0)});
  EXPECT_EQ(overlay.at(right, 37, 24), green(rgba));
  EXPECT_EQ(overlay.at(right, 27, 24), background(rgba));
  gst_buffer_unref(right);

  g_object_set(overlay.element(), "draw-orientation", FALSE, nullptr);
  GstBuffer* plain = overlay.draw({keypoint(32, 24, 20, 90)});
  EXPECT_EQ(overlay.at(plain, 32, 29), background(rgba));
  EXPECT_EQ(overlay.at(plain, 42, 24), green(rgba));
  gst_buffer_unref(plain);
}

TEST(KeypointOverlay, KeypointsAreScaledFromTheMetaSpaceToTheFrame) {
  const auto rgba = GST_VIDEO_FORMAT_RGBA;
  Overlay overlay(rgba, kWidth, kHeight);
  GstBuffer* output = overlay.draw_in_space({keypoint(64, 48, 40, -1)}, 128, 96);
  EXPECT_EQ(overlay.at(output, 42, 24), green(rgba));
  EXPECT_EQ(overlay.at(output, 32, 14), green(rgba));
  EXPECT_EQ(overlay.at(output, 52, 24), background(rgba));
  gst_buffer_unref(output);
}

TEST(KeypointOverlay, MaxKeypointsDrawsTheStrongestOnly) {
  const auto rgba = GST_VIDEO_FORMAT_RGBA;
  const std::vector<GstKeypoint> keypoints = {
      keypoint(10, 10, 8, -1, 1.0f), keypoint(30, 10, 8, -1, 3.0f), keypoint(50, 10, 8, -1, 2.0f)};
  Overlay overlay(rgba, kWidth, kHeight);
  auto drawn = [&](GstBuffer* output) {
    std::vector<bool> rims;
    for (int x : {14, 34, 54}) {
      rims.push_back(overlay.at(output, x, 10) == green(rgba));
    }
    gst_buffer_unref(output);
    return rims;
  };
  EXPECT_EQ(drawn(overlay.draw(keypoints)), (std::vector<bool>{true, true, true}));
  g_object_set(overlay.element(), "max-keypoints", 1, nullptr);
  EXPECT_EQ(drawn(overlay.draw(keypoints)), (std::vector<bool>{false, true, false}));
  g_object_set(overlay.element(), "max-keypoints", 2, nullptr);
  EXPECT_EQ(drawn(overlay.draw(keypoints)), (std::vector<bool>{false, true, true}));
  g_object_set(overlay.element(), "max-keypoints", 3, nullptr);
  EXPECT_EQ(drawn(overlay.draw(keypoints)), (std::vector<bool>{true, true, true}));
}

TEST(KeypointOverlay, ThicknessWidensTheRimSymmetrically) {
  const auto rgba = GST_VIDEO_FORMAT_RGBA;
  Overlay overlay(rgba, kWidth, kHeight);
  g_object_set(overlay.element(), "thickness", 5, nullptr);
  GstBuffer* output = overlay.draw({keypoint(32, 24, 20, -1)});
  for (int x : {40, 42, 44}) {
    EXPECT_EQ(overlay.at(output, x, 24), green(rgba)) << x;
  }
  for (int x : {39, 45}) {
    EXPECT_EQ(overlay.at(output, x, 24), background(rgba)) << x;
  }
  gst_buffer_unref(output);
}

TEST(KeypointOverlay, ColourAlphaBlendsAndNeverLowersOpacity) {
  const auto rgba = GST_VIDEO_FORMAT_RGBA;
  Overlay overlay(rgba, kWidth, kHeight);
  g_object_set(overlay.element(), "color", 0x80ff0000u, nullptr);
  GstBuffer* output = overlay.draw({keypoint(32, 24, 20, -1)});
  /* 255 * 128/255 + 64 * 127/255 = 160; 64 * 127/255 = 32. */
  EXPECT_EQ(overlay.at(output, 42, 24), (std::vector<int>{160, 32, 32, 160}));
  gst_buffer_unref(output);

  Overlay yuv(GST_VIDEO_FORMAT_I420, kWidth, kHeight);
  g_object_set(yuv.element(), "color", 0xffff0000u, nullptr);
  GstBuffer* red = yuv.draw({keypoint(32, 24, 20, -1)});
  EXPECT_EQ(yuv.at(red, 42, 24), (std::vector<int>{81, 90, 240}));
  gst_buffer_unref(red);
}

TEST(KeypointOverlay, PropertiesHaveDefaultsAndRefuseOutOfRangeValues) {
  GstElement* element = gst_element_factory_make("keypointoverlay", nullptr);
  ASSERT_NE(element, nullptr);
  guint color = 0;
  gint thickness = 0, max_keypoints = -1;
  gboolean draw_orientation = FALSE;
  g_object_get(element, "color", &color, "thickness", &thickness, "max-keypoints", &max_keypoints,
               "draw-orientation", &draw_orientation, nullptr);
  EXPECT_EQ(color, 0xff00ff00u);
  EXPECT_EQ(thickness, 1);
  EXPECT_EQ(max_keypoints, 0);
  EXPECT_TRUE(draw_orientation);

  GObjectClass* klass = G_OBJECT_GET_CLASS(element);
  const GParamSpecInt* thickness_spec =
      G_PARAM_SPEC_INT(g_object_class_find_property(klass, "thickness"));
  EXPECT_EQ(thickness_spec->minimum, 1);
  EXPECT_EQ(thickness_spec->maximum, 16);
  const GParamSpecInt* max_spec =
      G_PARAM_SPEC_INT(g_object_class_find_property(klass, "max-keypoints"));
  EXPECT_EQ(max_spec->minimum, 0);

  const int refusals_before = gst_test::LogCounter::range_refusals();
  g_object_set(element, "thickness", 0, nullptr);
  g_object_set(element, "thickness", 17, nullptr);
  g_object_set(element, "max-keypoints", -1, nullptr);
  EXPECT_EQ(gst_test::LogCounter::range_refusals() - refusals_before, 3);
  g_object_get(element, "thickness", &thickness, "max-keypoints", &max_keypoints, nullptr);
  EXPECT_EQ(thickness, 1);
  EXPECT_EQ(max_keypoints, 0);

  g_object_set(element, "thickness", 16, nullptr);
  g_object_get(element, "thickness", &thickness, nullptr);
  EXPECT_EQ(thickness, 16);
  gst_object_unref(element);
}

/* A frame whose keypoints (dots, size 0) carry the given track ids. */
GstBuffer* frame_with_tracks(GstVideoFormat format, const std::vector<GstKeypoint>& keypoints,
                             const std::vector<guint64>& ids) {
  GstBuffer* buffer = gst_test::make_video_buffer(format, kWidth, kHeight, kBackground);
  add_keypoints(buffer, kWidth, kHeight, keypoints);
  std::vector<GstKeypointTrack> tracks;
  for (guint64 id : ids) {
    tracks.push_back(GstKeypointTrack{id, -1, 0});
  }
  GstKeypointMotion motion;
  gst_keypoint_motion_init(&motion);
  gst_buffer_add_keypoints_tracks_meta(buffer, kWidth, kHeight, tracks.data(),
                                       static_cast<guint>(tracks.size()), &motion);
  return buffer;
}

std::vector<int> rgba_of(guint32 argb) {
  return {static_cast<int>((argb >> 16) & 0xff), static_cast<int>((argb >> 8) & 0xff),
          static_cast<int>(argb & 0xff), 255};
}

/* Track 7 moves right along y = 10, track 8 along y = 30; the keypoints themselves are drawn
 * transparent so that only the trails show. */
TEST(KeypointOverlay, TrailsJoinEachTracksLastPositionsInItsColour) {
  const auto rgba = GST_VIDEO_FORMAT_RGBA;
  Overlay overlay(rgba, kWidth, kHeight);
  g_object_set(overlay.element(), "color", 0x00000000u, "track-length", 3, nullptr);
  GstBuffer* output = nullptr;
  for (int step = 0; step < 4; step++) {
    const float x = 8.0f + 10.0f * step;
    if (output) {
      gst_buffer_unref(output);
    }
    const guint64 second_id = step == 3 ? 108 : 8; /* track 8 ends; 108 starts there */
    output = overlay.process(
        frame_with_tracks(rgba, {keypoint(x, 10, 0, -1), keypoint(x, 30, 0, -1)}, {7, second_id}));
    ASSERT_NE(output, nullptr);
  }
  /* Track 7's last three positions: x = 18, 28, 38; the first segment (8..18) is gone. */
  for (int x : {19, 25, 33, 38}) {
    EXPECT_EQ(overlay.at(output, x, 10), rgba_of(keypoint_trail_color(7))) << x;
  }
  EXPECT_EQ(overlay.at(output, 12, 10), background(rgba));
  EXPECT_EQ(overlay.at(output, 44, 10), background(rgba));
  /* Track 8 ended; track 108 is new with one position: no trail on y = 30. */
  for (int x : {12, 25, 38}) {
    EXPECT_EQ(overlay.at(output, x, 30), background(rgba)) << x;
  }
  EXPECT_NE(keypoint_trail_color(7), keypoint_trail_color(108));
  gst_buffer_unref(output);
}

TEST(KeypointOverlay, TrackLengthZeroAndMismatchedTracksDrawNoTrails) {
  const auto rgba = GST_VIDEO_FORMAT_RGBA;
  for (int case_index = 0; case_index < 2; case_index++) {
    Overlay overlay(rgba, kWidth, kHeight);
    g_object_set(overlay.element(), "color", 0x00000000u, "track-length", case_index ? 5 : 0,
                 nullptr);
    GstBuffer* output = nullptr;
    for (int step = 0; step < 3; step++) {
      if (output) {
        gst_buffer_unref(output);
      }
      const float x = 8.0f + 10.0f * step;
      /* Case 1: two tracks for one keypoint, which belong to no keypoint in particular. */
      const std::vector<guint64> ids =
          case_index ? std::vector<guint64>{7, 9} : std::vector<guint64>{7};
      output = overlay.process(frame_with_tracks(rgba, {keypoint(x, 10, 0, -1)}, ids));
      ASSERT_NE(output, nullptr);
    }
    EXPECT_EQ(overlay.at(output, 23, 10), background(rgba)) << case_index;
    gst_buffer_unref(output);
  }
}

TEST(KeypointOverlay, TrailsOnYuvFramesAndTheTrackLengthProperty) {
  GstElement* element = gst_element_factory_make("keypointoverlay", nullptr);
  gint length = 0;
  g_object_get(element, "track-length", &length, nullptr);
  EXPECT_EQ(length, 10);
  const GParamSpecInt* spec =
      G_PARAM_SPEC_INT(g_object_class_find_property(G_OBJECT_GET_CLASS(element), "track-length"));
  EXPECT_EQ(spec->minimum, 0);
  EXPECT_EQ(spec->maximum, 1000);
  gst_object_unref(element);

  Overlay overlay(GST_VIDEO_FORMAT_NV12, kWidth, kHeight);
  g_object_set(overlay.element(), "color", 0x00000000u, nullptr);
  GstBuffer* first =
      overlay.process(frame_with_tracks(GST_VIDEO_FORMAT_NV12, {keypoint(8, 10, 0, -1)}, {5}));
  GstBuffer* second =
      overlay.process(frame_with_tracks(GST_VIDEO_FORMAT_NV12, {keypoint(40, 10, 0, -1)}, {5}));
  EXPECT_NE(overlay.at(second, 24, 10), background(GST_VIDEO_FORMAT_NV12));
  EXPECT_EQ(overlay.at(second, 24, 30), background(GST_VIDEO_FORMAT_NV12));
  gst_buffer_unref(first);
  gst_buffer_unref(second);
}

/* A 21x17 reference found shifted by (10, 8), in a meta space `scale` times the frame's: its
 * outline runs through (10, 8), (30, 8), (30, 24) and (10, 24) of the frame. */
void add_object(GstBuffer* buffer, double scale) {
  const gdouble homography[9] = {scale, 0, 10 * scale, 0, scale, 8 * scale, 0, 0, 1};
  ASSERT_NE(gst_buffer_add_keypoints_object_meta(buffer, "box", static_cast<guint>(kWidth * scale),
                                                 static_cast<guint>(kHeight * scale), 21, 17,
                                                 homography, 30, 20),
            nullptr);
}

const std::vector<std::array<int, 2>> kOutline = {{20, 8},  {30, 16}, {20, 24},
                                                  {10, 16}, {10, 8},  {30, 24}};
const std::vector<std::array<int, 2>> kOffOutline = {{20, 16}, {15, 12}, {40, 16}, {2, 2}};

TEST(KeypointOverlay, ObjectOutlineIsDrawnInTheObjectColourWithoutKeypoints) {
  Overlay overlay(GST_VIDEO_FORMAT_RGBA, kWidth, kHeight);
  GstBuffer* input =
      gst_test::make_video_buffer(GST_VIDEO_FORMAT_RGBA, kWidth, kHeight, kBackground);
  add_object(input, 1.0);
  GstBuffer* output = overlay.process(input);
  ASSERT_NE(output, nullptr);
  for (const auto& [x, y] : kOutline) {
    EXPECT_EQ(overlay.at(output, x, y), rgba_of(0xffff0000u)) << x << "," << y;
  }
  for (const auto& [x, y] : kOffOutline) {
    EXPECT_EQ(overlay.at(output, x, y), background(GST_VIDEO_FORMAT_RGBA)) << x << "," << y;
  }
  gst_buffer_unref(output);
}

/* The outline goes over the keypoints; on YUV in the colour's BT.601 values; from a meta space
 * twice the frame's. */
TEST(KeypointOverlay, ObjectOutlineIsScaledAndDrawnOverTheKeypoints) {
  Overlay overlay(GST_VIDEO_FORMAT_NV12, kWidth, kHeight);
  g_object_set(overlay.element(), "object-color", 0xff0000ffu, nullptr);
  GstBuffer* input =
      gst_test::make_video_buffer(GST_VIDEO_FORMAT_NV12, kWidth, kHeight, kBackground);
  add_keypoints(input, kWidth, kHeight, {keypoint(20, 8, 0, -1)});
  add_object(input, 2.0);
  GstBuffer* output = overlay.process(input);
  ASSERT_NE(output, nullptr);
  const std::vector<int> blue = {41, 240, 110};
  for (const auto& [x, y] : kOutline) {
    EXPECT_EQ(overlay.at(output, x, y), blue) << x << "," << y;
  }
  EXPECT_EQ(overlay.at(output, 20, 16), background(GST_VIDEO_FORMAT_NV12));
  gst_buffer_unref(output);
}

TEST(KeypointOverlay, DrawObjectsOffLeavesOutlinesOut) {
  Overlay overlay(GST_VIDEO_FORMAT_RGBA, kWidth, kHeight);
  gboolean draw_objects = FALSE;
  guint object_color = 0;
  g_object_get(overlay.element(), "draw-objects", &draw_objects, "object-color", &object_color,
               nullptr);
  EXPECT_TRUE(draw_objects);
  EXPECT_EQ(object_color, 0xffff0000u);
  g_object_set(overlay.element(), "draw-objects", FALSE, nullptr);
  GstBuffer* input =
      gst_test::make_video_buffer(GST_VIDEO_FORMAT_RGBA, kWidth, kHeight, kBackground);
  add_object(input, 1.0);
  GstBuffer* output = overlay.process(input);
  ASSERT_NE(output, nullptr);
  for (const auto& [x, y] : kOutline) {
    EXPECT_EQ(overlay.at(output, x, y), background(GST_VIDEO_FORMAT_RGBA)) << x << "," << y;
  }
  gst_buffer_unref(output);
}

TEST(KeypointOverlay, UnsupportedCapsAreRefused) {
  GstHarness* harness = gst_harness_new("keypointoverlay");
  GstPad* sink = gst_element_get_static_pad(harness->element, "sink");
  GstCaps* gray16 = gst_caps_from_string(
      gst_test::caps_string(GST_VIDEO_FORMAT_GRAY16_LE, kWidth, kHeight).c_str());
  EXPECT_FALSE(gst_pad_query_accept_caps(sink, gray16));
  gst_harness_set_src_caps(harness, gray16);
  EXPECT_EQ(
      gst_harness_push(harness, gst_buffer_new_allocate(nullptr, kWidth * kHeight * 2, nullptr)),
      GST_FLOW_NOT_NEGOTIATED);
  gst_object_unref(sink);
  gst_harness_teardown(harness);
}

}  // namespace

int main(int argc, char** argv) {
  gst_test::LogCounter::install();
  gst_init(&argc, &argv);
  if (!GST_ELEMENT_REGISTER(keypointoverlay, nullptr)) {
    return 1;
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
