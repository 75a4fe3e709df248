// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-bench-streams' command line: the GPU count and what it rules out.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "streams_options.h"

namespace gpusift::tools {
namespace {

std::string parse(std::vector<const char*> args, StreamsOptions* options) {
  args.insert(args.begin(), "gpusift-bench-streams");
  return parse_streams_options(static_cast<int>(args.size()), args.data(), options);
}

TEST(StreamsOptions, GpusSpreadInstancesAndDefaultToOne) {
  StreamsOptions options;
  EXPECT_EQ(parse({}, &options), "");
  EXPECT_EQ(options.gpus, 1);
  EXPECT_EQ(parse({"--gpus", "2", "--streams", "2,4,16"}, &options), "");
  EXPECT_EQ(options.gpus, 2);
  EXPECT_EQ(options.streams, (std::vector<int>{2, 4, 16}));
}

TEST(StreamsOptions, BadGpuCountsAndTimelinesAcrossGpusAreRefused) {
  for (const char* count : {"0", "-1", "17", "two"}) {
    StreamsOptions options;
    EXPECT_NE(parse({"--gpus", count}, &options), "") << count;
  }
  StreamsOptions options;
  EXPECT_NE(parse({"--gpus", "2", "--timeline"}, &options), "");
  EXPECT_NE(parse({"--gpus"}, &options), "");
}

}  // namespace
}  // namespace gpusift::tools
