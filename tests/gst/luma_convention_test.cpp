// SPDX-License-Identifier: LGPL-2.1-or-later
// One luma convention for every input: a colour photo through videoconvert into GRAY8, I420,
// NV12, BGR and RGBx gives gpusiftfilter nearly the same keypoints (counts within 3 % of GRAY8's,
// at least 90 % of keypoints within 1 px of one of GRAY8's, both ways), because limited-range
// luma is brought to full range first. And the caps decide: the same bytes as GRAY8 with
// colorimetry saying limited range equal the bytes brought to full range beforehand, bit for
// bit. Built twice: CPU backend here, and with GPUSIFT_LUMA_CUDA on CUDA, where each format's
// keypoints must also agree with the CPU backend's (99 % within 1 px both ways).
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gpusift/color.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

#ifdef GPUSIFT_LUMA_CUDA
constexpr const char* kBackend = "cuda";
#else
constexpr const char* kBackend = "cpu";
#endif

struct Result {
  std::vector<GstKeypoint> keypoints;
  std::vector<float> descriptors;
};

// The first frame's features from `description`, which ends in an appsink named "out".
Result run(const std::string& description) {
  Result result;
  GError* error = nullptr;
  GstElement* pipeline = gst_parse_launch(description.c_str(), &error);
  EXPECT_EQ(error, nullptr) << (error ? error->message : "");
  if (error) {
    g_error_free(error);
    return result;
  }
  GstElement* out = gst_bin_get_by_name(GST_BIN(pipeline), "out");
  EXPECT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  GstSample* sample = gst_app_sink_try_pull_sample(GST_APP_SINK(out), 120 * GST_SECOND);
  EXPECT_NE(sample, nullptr) << description;
  if (sample) {
    const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(gst_sample_get_buffer(sample));
    EXPECT_NE(meta, nullptr);
    if (meta) {
      result.keypoints.assign(meta->keypoints, meta->keypoints + meta->n_keypoints);
      const auto* rows = static_cast<const float*>(meta->descriptors);
      result.descriptors.assign(rows, rows + meta->n_keypoints * meta->descriptor_size);
    }
    gst_sample_unref(sample);
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(out);
  gst_object_unref(pipeline);
  return result;
}

std::string through(const char* format, const char* backend) {
  return "filesrc location=\"" + test_data_path("coffee.png") +
         "\" ! pngdec ! videoconvert ! video/x-raw,format=" + format +
         " ! gpusiftfilter descriptor=float backend=" + backend + " ! appsink name=out sync=false";
}

// The share of `a`'s keypoints with one of `b`'s within 1 px.
double share_within_one_pixel(const std::vector<GstKeypoint>& a,
                              const std::vector<GstKeypoint>& b) {
  if (a.empty())
    return 0.0;
  int near = 0;
  for (const GstKeypoint& p : a) {
    for (const GstKeypoint& q : b) {
      if (std::hypot(p.x - q.x, p.y - q.y) <= 1.0) {
        ++near;
        break;
      }
    }
  }
  return static_cast<double>(near) / a.size();
}

bool same_bits(const Result& a, const Result& b) {
  return a.keypoints.size() == b.keypoints.size() &&
         std::memcmp(a.keypoints.data(), b.keypoints.data(),
                     a.keypoints.size() * sizeof(GstKeypoint)) == 0 &&
         a.descriptors == b.descriptors;
}

TEST(LumaConvention, EveryFormatGivesTheKeypointsOfGray8) {
  const Result gray = run(through("GRAY8", kBackend));
  ASSERT_GT(gray.keypoints.size(), 500u);
  std::printf("%-6s %6s %8s %8s\n", "format", "kp", "of gray", "within 1px");
  for (const char* format : {"I420", "NV12", "BGR", "RGBx"}) {
    SCOPED_TRACE(format);
    const Result other = run(through(format, kBackend));
    const double ratio = static_cast<double>(other.keypoints.size()) / gray.keypoints.size();
    const double of_gray = share_within_one_pixel(gray.keypoints, other.keypoints);
    const double of_other = share_within_one_pixel(other.keypoints, gray.keypoints);
    std::printf("%-6s %6zu %8.3f %8.3f %8.3f\n", format, other.keypoints.size(), ratio, of_gray,
                of_other);
    EXPECT_NEAR(ratio, 1.0, 0.03);
    EXPECT_GE(of_gray, 0.90);
    EXPECT_GE(of_other, 0.90);
#ifdef GPUSIFT_LUMA_CUDA
    // The backends agree as on any frame (SIFT's two backends are not bit-identical).
    const Result cpu = run(through(format, "cpu"));
    EXPECT_GE(share_within_one_pixel(cpu.keypoints, other.keypoints), 0.99);
    EXPECT_GE(share_within_one_pixel(other.keypoints, cpu.keypoints), 0.99);
#endif
  }
}

// The caps decide: GRAY8 bytes flagged limited range (colorimetry 1:4:0:0 with range 16-235 is
// "2:4:0:0") give the features of those bytes brought to full range.
TEST(LumaConvention, Gray8CapsSayingLimitedRangeAreBroughtToFullRange) {
  const std::string limited_bytes = "filesrc location=\"" + test_data_path("coffee.png") +
                                    "\" ! pngdec ! videoconvert ! video/x-raw,format=GRAY8";
  // videoconvert into limited-range GRAY8, then the same bytes relabelled.
  const Result as_limited =
      run(limited_bytes + ",colorimetry=2:4:0:0 ! gpusiftfilter " +
          "descriptor=float backend=" + kBackend + " ! appsink name=out sync=false");
  const Result as_full = run(limited_bytes +
                             ",colorimetry=2:4:0:0 ! capssetter join=true replace=false "
                             "caps=\"video/x-raw,colorimetry=(string)1:4:0:0\" ! gpusiftfilter "
                             "descriptor=float backend=" +
                             std::string(kBackend) + " ! appsink name=out sync=false");
  ASSERT_GT(as_limited.keypoints.size(), 500u);
  EXPECT_FALSE(same_bits(as_limited, as_full));  // the range changed what the element saw
  // Bringing the bytes to full range by hand matches the limited-range reading exactly.
  GError* error = nullptr;
  GstElement* pipeline = gst_parse_launch(
      (limited_bytes + ",colorimetry=2:4:0:0 ! appsink name=out sync=false").c_str(), &error);
  ASSERT_EQ(error, nullptr);
  GstElement* out = gst_bin_get_by_name(GST_BIN(pipeline), "out");
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstSample* sample = gst_app_sink_try_pull_sample(GST_APP_SINK(out), 60 * GST_SECOND);
  ASSERT_NE(sample, nullptr);
  GstVideoInfo info;
  ASSERT_TRUE(gst_video_info_from_caps(&info, gst_sample_get_caps(sample)));
  GstVideoFrame frame;
  ASSERT_TRUE(gst_video_frame_map(&frame, &info, gst_sample_get_buffer(sample), GST_MAP_READ));
  const int width = GST_VIDEO_FRAME_WIDTH(&frame), height = GST_VIDEO_FRAME_HEIGHT(&frame);
  GstBuffer* expanded =
      gst_buffer_new_allocate(nullptr, static_cast<gsize>(width) * height, nullptr);
  GstMapInfo map;
  gst_buffer_map(expanded, &map, GST_MAP_WRITE);
  for (int y = 0; y < height; ++y) {
    const auto* row = static_cast<const uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0)) +
                      y * GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0);
    for (int x = 0; x < width; ++x)
      map.data[y * width + x] = full_range_luma(row[x]);
  }
  gst_buffer_unmap(expanded, &map);
  gst_video_frame_unmap(&frame);
  gst_sample_unref(sample);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(out);
  gst_object_unref(pipeline);

  GstElement* by_hand = gst_parse_launch(
      (std::string("appsrc name=in caps=\"video/x-raw,format=GRAY8,width=") +
       std::to_string(width) + ",height=" + std::to_string(height) +
       ",framerate=0/1,colorimetry=(string)1:4:0:0\" ! gpusiftfilter descriptor=float backend=" +
       kBackend + " ! appsink name=out sync=false")
          .c_str(),
      &error);
  ASSERT_EQ(error, nullptr);
  GstElement* in = gst_bin_get_by_name(GST_BIN(by_hand), "in");
  out = gst_bin_get_by_name(GST_BIN(by_hand), "out");
  gst_element_set_state(by_hand, GST_STATE_PLAYING);
  ASSERT_EQ(gst_app_src_push_buffer(GST_APP_SRC(in), expanded), GST_FLOW_OK);
  // EOS lets a backend that holds frames in flight (CUDA) hand this one on.
  gst_app_src_end_of_stream(GST_APP_SRC(in));
  sample = gst_app_sink_try_pull_sample(GST_APP_SINK(out), 60 * GST_SECOND);
  ASSERT_NE(sample, nullptr);
  const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(gst_sample_get_buffer(sample));
  ASSERT_NE(meta, nullptr);
  Result expected;
  expected.keypoints.assign(meta->keypoints, meta->keypoints + meta->n_keypoints);
  const auto* rows = static_cast<const float*>(meta->descriptors);
  expected.descriptors.assign(rows, rows + meta->n_keypoints * meta->descriptor_size);
  gst_sample_unref(sample);
  gst_element_set_state(by_hand, GST_STATE_NULL);
  gst_object_unref(in);
  gst_object_unref(out);
  gst_object_unref(by_hand);
  EXPECT_TRUE(same_bits(as_limited, expected));
}

}  // namespace
}  // namespace gpusift::testing
