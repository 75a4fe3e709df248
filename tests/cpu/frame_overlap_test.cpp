// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-bench-streams' timeline arithmetic (the tool itself needs a GPU).
#include <gtest/gtest.h>

#include <vector>

#include "frame_overlap.h"

namespace gpusift::tools {
namespace {

TEST(FrameOverlap, BackToBackFramesOfOneInstanceNeverOverlap) {
  const FrameOverlap o = measure_overlap({{0, 0, 0, 10}, {0, 1, 10, 20}, {0, 2, 25, 30}});
  EXPECT_DOUBLE_EQ(o.span_ms, 30);
  EXPECT_DOUBLE_EQ(o.busy_ms, 25);
  EXPECT_DOUBLE_EQ(o.overlapped_ms, 0);
  EXPECT_EQ(o.max_concurrency, 1);
}

TEST(FrameOverlap, CountsTheTimeWithTwoOrMoreInstancesAndTheMostAtOnce) {
  const std::vector<FrameInterval> intervals = {
      {0, 0, 0, 10}, {0, 1, 10, 20}, {1, 0, 5, 15}, {2, 0, 8, 9}, {2, 1, 30, 40}};
  const FrameOverlap o = measure_overlap(intervals);
  EXPECT_DOUBLE_EQ(o.span_ms, 40);
  EXPECT_DOUBLE_EQ(o.busy_ms, 30);
  EXPECT_DOUBLE_EQ(o.overlapped_ms, 10);
  EXPECT_EQ(o.max_concurrency, 3);
}

TEST(FrameOverlap, NoFramesIsNoTime) {
  const FrameOverlap o = measure_overlap({});
  EXPECT_DOUBLE_EQ(o.span_ms, 0);
  EXPECT_EQ(o.max_concurrency, 0);
}

}  // namespace
}  // namespace gpusift::tools
