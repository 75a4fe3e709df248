// SPDX-License-Identifier: LGPL-2.1-or-later
// Eight gpusiftfilter streams in one process on the CPU backend give, bit for bit, the metas each
// gives alone: separate pipelines with sources of their own, and one source into a tee whose
// branches share every buffer.
#include <gtest/gtest.h>

#include <vector>

#include "concurrency_support.h"

namespace gpusift::testing {
namespace {

constexpr int kStreams = 8;

TEST(Concurrency, EightSeparatePipelinesEqualEachRunAlone) {
  std::vector<StreamSpec> streams = varied_streams("cpu", kStreams);
  const std::vector<StreamFeatures> alone = each_alone(streams);
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    expect_each_equal(streams, alone, run_concurrently(streams));
  }
  release_streams(&streams);
}

TEST(Concurrency, EightTeeBranchesEqualEachRunAlone) {
  std::vector<StreamSpec> streams = tee_streams("cpu", kStreams);
  const std::vector<StreamFeatures> alone = each_alone(streams);
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    expect_each_equal(streams, alone, run_through_tee(streams));
  }
  release_streams(&streams);
}

}  // namespace
}  // namespace gpusift::testing
