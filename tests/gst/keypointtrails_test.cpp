// SPDX-License-Identifier: LGPL-2.1-or-later
/* keypointtrails: what the overlay remembers of each track, and the colour of an id; and the
 * polyline the trails (and outlines) are drawn with. */
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "keypointoverlay/keypoint_draw.h"
#include "keypointoverlay/keypoint_trails.h"

namespace {

/* One frame: keypoint i at (x[i], 10) of track ids[i]. */
class Frame {
 public:
  Frame(const std::vector<guint64>& ids, const std::vector<float>& xs, guint width = 64) {
    buffer_ = gst_buffer_new();
    std::vector<GstKeypoint> keypoints;
    std::vector<GstKeypointTrack> tracks;
    for (size_t i = 0; i < ids.size(); i++) {
      keypoints.push_back(GstKeypoint{xs[i], 10.0f, 4.0f, -1.0f, 1.0f, 0, -1});
      tracks.push_back(GstKeypointTrack{ids[i], -1, 0});
    }
    GstKeypointMotion motion;
    gst_keypoint_motion_init(&motion);
    keypoints_ = gst_buffer_add_keypoints_meta(buffer_, GST_KEYPOINTS_METHOD_SIFT, width, 48,
                                               keypoints.data(), (guint)keypoints.size(),
                                               GST_KEYPOINTS_DESCRIPTOR_NONE, 0, nullptr);
    tracks_ = gst_buffer_add_keypoints_tracks_meta(buffer_, width, 48, tracks.data(),
                                                   (guint)tracks.size(), &motion);
  }
  ~Frame() { gst_buffer_unref(buffer_); }
  Frame(const Frame&) = delete;
  Frame& operator=(const Frame&) = delete;

  void update(KeypointTrails* trails, guint length) const {
    keypoint_trails_update(trails, keypoints_, tracks_, length);
  }

 private:
  GstBuffer* buffer_;
  const GstKeypointsMeta* keypoints_;
  const GstKeypointsTracksMeta* tracks_;
};

std::vector<float> trail_xs(const KeypointTrails& trails, guint64 id) {
  const gfloat* xy = nullptr;
  const guint n = keypoint_trails_get(&trails, id, &xy);
  std::vector<float> xs;
  for (guint i = 0; i < n; i++) {
    xs.push_back(xy[2 * i]);
  }
  return xs;
}

TEST(KeypointTrails, KeepTheLastPositionsOfEachTrackOldestFirst) {
  KeypointTrails trails;
  keypoint_trails_init(&trails);
  Frame({1, 2}, {1, 50}).update(&trails, 3);
  Frame({2, 1}, {51, 2}).update(&trails, 3);
  Frame({1, 3}, {3, 30}).update(&trails, 3);
  Frame({1}, {4}).update(&trails, 3);
  EXPECT_EQ(trail_xs(trails, 1), (std::vector<float>{2, 3, 4}));
  EXPECT_EQ(trail_xs(trails, 2), (std::vector<float>{50, 51}));
  EXPECT_EQ(trail_xs(trails, 3), (std::vector<float>{30}));
  EXPECT_TRUE(trail_xs(trails, 99).empty());

  /* Track 2 was last seen three frames ago: forgotten now. A shorter length trims trails. */
  Frame({1}, {5}).update(&trails, 3);
  EXPECT_TRUE(trail_xs(trails, 2).empty());
  EXPECT_EQ(trail_xs(trails, 3), (std::vector<float>{30}));
  Frame({1}, {6}).update(&trails, 2);
  EXPECT_EQ(trail_xs(trails, 1), (std::vector<float>{5, 6}));
  keypoint_trails_release(&trails);
}

TEST(KeypointTrails, ANewCoordinateSpaceOrLengthZeroForgetsEverything) {
  KeypointTrails trails;
  keypoint_trails_init(&trails);
  Frame({1}, {1}).update(&trails, 4);
  Frame({1}, {2}).update(&trails, 4);
  Frame({1}, {3}, 128).update(&trails, 4);
  EXPECT_EQ(trail_xs(trails, 1), (std::vector<float>{3}));
  Frame({1}, {4}, 128).update(&trails, 0);
  EXPECT_TRUE(trail_xs(trails, 1).empty());
  keypoint_trails_release(&trails);
}

TEST(KeypointTrails, ColoursAreOpaqueSaturatedAndDifferForNeighbouringIds) {
  std::set<guint32> colours;
  for (guint64 id = 1; id <= 64; id++) {
    const guint32 c = keypoint_trail_color(id);
    EXPECT_EQ(c >> 24, 0xffu);
    const guint r = (c >> 16) & 0xff, g = (c >> 8) & 0xff, b = c & 0xff;
    EXPECT_EQ(std::max({r, g, b}), 255u) << id;
    EXPECT_EQ(std::min({r, g, b}), 0u) << id;
    colours.insert(c);
  }
  EXPECT_GT(colours.size(), 56u);
  EXPECT_EQ(keypoint_trail_color(G_MAXUINT64), keypoint_trail_color(G_MAXUINT64));
}

TEST(KeypointDraw, PolylineCoversItsSegmentsAndClosesWhenAsked) {
  KeypointDrawMask mask;
  keypoint_draw_mask_init(&mask, 32, 32);
  const gdouble square[] = {4, 4, 20, 4, 20, 20, 4, 20};
  keypoint_draw_polyline(&mask, square, 4, FALSE, 1.0);
  auto at = [&](int x, int y) { return mask.pixels[y * mask.width + x]; };
  EXPECT_EQ(at(12, 4), 1);
  EXPECT_EQ(at(20, 12), 1);
  EXPECT_EQ(at(12, 20), 1);
  EXPECT_EQ(at(4, 12), 0);
  EXPECT_EQ(at(12, 12), 0);
  keypoint_draw_mask_clear(&mask);
  keypoint_draw_polyline(&mask, square, 4, TRUE, 1.0);
  EXPECT_EQ(at(4, 12), 1);
  keypoint_draw_mask_clear(&mask);
  keypoint_draw_polyline(&mask, square, 1, TRUE, 1.0);
  keypoint_draw_polyline(&mask, square, 0, TRUE, 1.0);
  EXPECT_EQ(mask.dirty_x1, -1);
  keypoint_draw_mask_release(&mask);
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
