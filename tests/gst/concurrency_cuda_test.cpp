// SPDX-License-Identifier: LGPL-2.1-or-later
// Eight gpusiftfilter streams at once on the CUDA backend give, bit for bit, the metas each gives
// alone: separate pipelines each with a CUDA context of its own, separate pipelines sharing one
// context, and one source into a tee whose branches share their pipeline's context.
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>
#include <gtest/gtest.h>

#include <vector>

#include "concurrency_support.h"

namespace gpusift::testing {
namespace {

constexpr int kStreams = 8;

TEST(ConcurrencyCuda, EightPipelinesWithContextsOfTheirOwnEqualEachRunAlone) {
  std::vector<StreamSpec> streams = varied_streams("cuda", kStreams);
  const std::vector<StreamFeatures> alone = each_alone(streams);
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    expect_each_equal(streams, alone, run_concurrently(streams));
  }
  release_streams(&streams);
}

TEST(ConcurrencyCuda, EightPipelinesSharingOneContextEqualEachRunAlone) {
  ASSERT_TRUE(gst_cuda_load_library());
  GstCudaContext* cuda = gst_cuda_context_new(0);
  ASSERT_NE(cuda, nullptr);
  GstContext* shared = gst_context_new_cuda_context(cuda);
  std::vector<StreamSpec> streams = varied_streams("cuda", kStreams);
  const std::vector<StreamFeatures> alone = each_alone(streams);
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    expect_each_equal(streams, alone, run_concurrently(streams, shared));
  }
  release_streams(&streams);
  gst_context_unref(shared);
  gst_object_unref(cuda);
}

TEST(ConcurrencyCuda, EightTeeBranchesEqualEachRunAlone) {
  std::vector<StreamSpec> streams = tee_streams("cuda", kStreams);
  const std::vector<StreamFeatures> alone = each_alone(streams);
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    expect_each_equal(streams, alone, run_through_tee(streams));
  }
  release_streams(&streams);
}

}  // namespace
}  // namespace gpusift::testing
