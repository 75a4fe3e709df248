// SPDX-License-Identifier: LGPL-2.1-or-later
// For the max-frames-in-flight suites of gpusiftfilter: the element with its properties set before
// it starts, a sequence of different real frames of one size, and the metas copied for comparison.
#pragma once

#include <gst/check/gstharness.h>
#include <gst/gst.h>

#include <opencv2/core.hpp>
#include <string>
#include <vector>

namespace gpusift::testing {

// gpusiftfilter as the harness element, "name=value ..." set before the harness starts it
// (backend and max-frames-in-flight are settled at start), with a bus of its own; `caps`, unless
// empty, is set on the harness's source.
GstHarness* filter_harness(const std::string& properties, const std::string& caps);
// Drops the messages still queued on the bus (they hold the element) and tears down.
void teardown_filter(GstHarness* h);
// The first error the element posted, as "message | debug"; empty without one.
std::string first_error(GstHarness* h);

// Crops of width x height from astronaut and coffee in turn, each shifted from the last, as gray.
std::vector<cv::Mat> different_frames(int count, int width, int height);
// The index-th frame's time at 30 frames a second.
GstClockTime frame_pts(int index);
// A GRAY8 buffer of `gray` at frame_pts(index).
GstBuffer* gray_buffer(const cv::Mat& gray, int index);

// The keypoints meta's size, method, keypoints and descriptors byte for byte.
struct MetaBytes {
  bool present = false;
  guint width = 0, height = 0;
  int method = -1;
  int descriptor_type = -1;
  guint descriptor_size = 0;
  std::vector<unsigned char> keypoints, descriptors;
  bool operator==(const MetaBytes& other) const;
};
MetaBytes meta_bytes(GstBuffer* buffer);

// The minimum latency that the element reports downstream.
GstClockTime reported_latency(GstHarness* h);

}  // namespace gpusift::testing
