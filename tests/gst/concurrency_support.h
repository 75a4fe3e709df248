// SPDX-License-Identifier: LGPL-2.1-or-later
// Streams of frames through gpusiftfilter, run alone or many at once in this process, with every
// frame's GstKeypointsMeta copied out byte for byte so that runs can be compared exactly.
#pragma once

#include <gst/gst.h>

#include <string>
#include <vector>

namespace gpusift::testing {

// One frame's meta as bytes, with the buffer's timestamp.
struct FrameFeatures {
  GstClockTime pts = GST_CLOCK_TIME_NONE;
  guint width = 0;
  guint height = 0;
  int method = -1;
  int descriptor_type = -1;
  guint descriptor_size = 0;
  std::vector<guint8> keypoints;
  std::vector<guint8> descriptors;

  bool operator==(const FrameFeatures& other) const;
};

struct StreamFeatures {
  std::vector<FrameFeatures> frames;
  std::string error;  // the first error or warning on the bus, or why the run did not end
};

// One stream: frames of one caps into one filter. The buffers are shared, never written.
struct StreamSpec {
  std::string name;
  std::string caps;
  std::vector<GstBuffer*> frames;
  std::string filter_properties;  // "backend=cpu method=surf ..."
};

// Streams whose settings cover both methods and every descriptor format; separate ones have
// frames of their own (images, sizes, formats), tee ones all share the first stream's frames.
std::vector<StreamSpec> varied_streams(const std::string& backend, int count);
std::vector<StreamSpec> tee_streams(const std::string& backend, int count);
void release_streams(std::vector<StreamSpec>* streams);

// appsrc ! gpusiftfilter ! appsink for one stream, alone.
StreamFeatures run_alone(const StreamSpec& stream);

// One pipeline per stream, all playing at once. `shared_context`, when given, is set on every
// pipeline before it starts (a GstCudaContext shared by all of them).
std::vector<StreamFeatures> run_concurrently(const std::vector<StreamSpec>& streams,
                                             GstContext* shared_context = nullptr);

// One appsrc (the first stream's frames) into a tee with one queue ! gpusiftfilter ! appsink
// branch per stream, in one pipeline.
std::vector<StreamFeatures> run_through_tee(const std::vector<StreamSpec>& streams);

// Each stream run alone, each expected to end without an error and with a meta on every frame.
std::vector<StreamFeatures> each_alone(const std::vector<StreamSpec>& streams);

// Every stream of `together` equals the same stream `alone` (GoogleTest expectations).
void expect_each_equal(const std::vector<StreamSpec>& streams,
                       const std::vector<StreamFeatures>& alone,
                       const std::vector<StreamFeatures>& together);

// Empty when `actual` equals `expected` frame for frame and byte for byte; else the difference.
std::string difference(const StreamFeatures& expected, const StreamFeatures& actual);

}  // namespace gpusift::testing
