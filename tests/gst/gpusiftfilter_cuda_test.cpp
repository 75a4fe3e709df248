// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusiftfilter on the GPU: CUDA-memory input from cudaupload, the CUDA backend against the CPU
// backend, the GPU running out of memory.
#include <cuda_runtime.h>
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gtest/gtest.h>
#include <gst/keypoints/gstkeypointsmeta-opencv.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "feature_agreement.h"
#include "frame_factory.h"
#include "gst_test_support.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

// cudaupload passes system memory through when downstream takes it, so CUDA memory is asked for.
const std::string kCudaUpload =
    "cudaupload ! capsfilter caps=\"video/x-raw(memory:CUDAMemory)\" ! ";

// Runs one frame through `description` and returns a copy of its meta's arrays.
struct MetaCopy {
  std::vector<cv::KeyPoint> keypoints;
  cv::Mat descriptors;
  std::vector<GstKeypoint> raw;
  bool found = false;
  std::string sink_caps;
};

MetaCopy run_one_frame(const std::string& description, const cv::Mat& image, GstVideoFormat format,
                       const char* filter_name = "f") {
  MetaCopy copy;
  GstHarness* h = gst_harness_new_parse(description.c_str());
  gst_harness_set_src_caps_str(h, caps_string(format, image.cols, image.rows).c_str());
  if (gst_harness_push(h, make_frame(image, format)) == GST_FLOW_OK) {
    GstBuffer* out = gst_harness_pull(h);
    const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(out);
    if (meta) {
      copy.found = true;
      copy.keypoints = gst_keypoints::to_cv_keypoints(meta);
      copy.descriptors = gst_keypoints::to_cv_descriptors(meta);
      copy.raw.assign(meta->keypoints, meta->keypoints + meta->n_keypoints);
    }
    gst_buffer_unref(out);
    GstElement* filter = gst_bin_get_by_name(GST_BIN(h->element), filter_name);
    if (filter) {
      GstPad* sink = gst_element_get_static_pad(filter, "sink");
      GstCaps* caps = gst_pad_get_current_caps(sink);
      if (caps) {
        gchar* text = gst_caps_to_string(caps);
        copy.sink_caps = text;
        g_free(text);
        gst_caps_unref(caps);
      }
      gst_object_unref(sink);
      gst_object_unref(filter);
    }
  }
  gst_harness_teardown(h);
  return copy;
}

class CudaFilter : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaFilter, CudaMemoryFromCudauploadGivesTheSystemMemoryKeypoints) {
  const cv::Mat gray = load_gray(GetParam());
  ASSERT_FALSE(gray.empty());
  for (GstVideoFormat format : {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420}) {
    const MetaCopy system = run_one_frame("gpusiftfilter name=f backend=cuda", gray, format);
    const MetaCopy device =
        run_one_frame(kCudaUpload + "gpusiftfilter name=f backend=cuda", gray, format);
    ASSERT_TRUE(system.found);
    ASSERT_TRUE(device.found);
    EXPECT_NE(device.sink_caps.find("memory:CUDAMemory"), std::string::npos) << device.sink_caps;
    ASSERT_GT(system.raw.size(), 50u);
    ASSERT_EQ(system.raw.size(), device.raw.size());
    EXPECT_EQ(0, std::memcmp(system.raw.data(), device.raw.data(),
                             system.raw.size() * sizeof(GstKeypoint)));
    EXPECT_EQ(0, cv::norm(system.descriptors, device.descriptors, cv::NORM_INF));
  }
}

TEST_P(CudaFilter, CudaBackendAgreesWithTheCpuBackend) {
  const cv::Mat gray = load_gray(GetParam());
  for (const char* upscale : {"false", "true"}) {
    const std::string props = std::string(" upscale=") + upscale;
    const MetaCopy cpu =
        run_one_frame("gpusiftfilter name=f backend=cpu" + props, gray, GST_VIDEO_FORMAT_I420);
    const MetaCopy gpu = run_one_frame(kCudaUpload + "gpusiftfilter name=f backend=cuda" + props,
                                       gray, GST_VIDEO_FORMAT_I420);
    const Agreement a =
        compare_features(cpu.keypoints, cpu.descriptors, gpu.keypoints, gpu.descriptors);
    std::printf("%-14s upscale %-5s cpu %5d cuda %5d recall %.4f precision %.4f L2 %.5f\n",
                GetParam().c_str(), upscale, a.reference_count, a.candidate_count, a.recall,
                a.precision, a.median_descriptor_distance);
    ASSERT_GT(a.reference_count, 50);
    EXPECT_GE(a.recall, 0.98);
    EXPECT_GE(a.precision, 0.98);
    EXPECT_LE(a.median_descriptor_distance, 0.02);
  }
}

INSTANTIATE_TEST_SUITE_P(RealImages, CudaFilter, ::testing::ValuesIn(parity_image_names()),
                         [](const auto& info) {
                           return info.param.substr(0, info.param.find('.'));
                         });

const char* allocator_of(GstBuffer* buffer) {
  GstMemory* memory = gst_buffer_peek_memory(buffer, 0);
  return memory && memory->allocator ? memory->allocator->mem_type : "";
}

// The keypoints of `gray` from a buffer of the pinned pool that the element offers upstream, then
// from a buffer of ordinary memory, through gpusiftfilter with `properties`.
std::vector<std::vector<GstKeypoint>> keypoints_from_pinned_then_pageable(
    const cv::Mat& gray, const std::string& properties) {
  std::vector<std::vector<GstKeypoint>> results;
  GstHarness* h = gst_harness_new_parse(("gpusiftfilter backend=cuda " + properties).c_str());
  const std::string caps_text = caps_string(GST_VIDEO_FORMAT_GRAY8, gray.cols, gray.rows);
  gst_harness_set_src_caps_str(h, caps_text.c_str());
  GstCaps* caps = gst_caps_from_string(caps_text.c_str());
  GstQuery* query = gst_query_new_allocation(caps, TRUE);
  GstBufferPool* pool = nullptr;
  GstBuffer* pinned = nullptr;
  GstVideoInfo info;
  GstVideoFrame frame;
  if (gst_pad_peer_query(h->srcpad, query) && gst_query_get_n_allocation_pools(query) >= 1)
    gst_query_parse_nth_allocation_pool(query, 0, &pool, nullptr, nullptr, nullptr);
  EXPECT_NE(pool, nullptr);
  if (pool && gst_buffer_pool_set_active(pool, TRUE) &&
      gst_buffer_pool_acquire_buffer(pool, &pinned, nullptr) == GST_FLOW_OK &&
      gst_video_info_from_caps(&info, caps) &&
      gst_video_frame_map(&frame, &info, pinned, GST_MAP_WRITE)) {
    EXPECT_STREQ(allocator_of(pinned), "GpusiftPinnedHost");
    for (int y = 0; y < gray.rows; ++y)
      std::memcpy(static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0)) +
                      y * GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0),
                  gray.ptr(y), gray.cols);
    gst_video_frame_unmap(&frame);
    for (GstBuffer* in : {pinned, make_frame(gray, GST_VIDEO_FORMAT_GRAY8)}) {
      EXPECT_EQ(gst_harness_push(h, in), GST_FLOW_OK);
      GstBuffer* out = gst_harness_pull(h);
      const GstKeypointsMeta* meta = out ? gst_buffer_get_keypoints_meta(out) : nullptr;
      EXPECT_NE(meta, nullptr);
      if (meta)
        results.emplace_back(meta->keypoints, meta->keypoints + meta->n_keypoints);
      if (out)
        gst_buffer_unref(out);
    }
  } else {
    ADD_FAILURE() << "no pinned buffer from the pool the element offered";
  }
  if (pool) {
    gst_buffer_pool_set_active(pool, FALSE);
    gst_object_unref(pool);
  }
  gst_query_unref(query);
  gst_caps_unref(caps);
  gst_harness_teardown(h);
  return results;
}

bool same_keypoints(const std::vector<GstKeypoint>& a, const std::vector<GstKeypoint>& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(GstKeypoint)) == 0;
}

// Upstream gets a pool of pinned memory, which the GPU reads without a staging copy (uploaded by
// default on a discrete GPU, read in place with host-frame-access=mapped); every way gives the
// keypoints of frames in ordinary memory, bit for bit.
TEST(CudaFilterPinnedMemory, OfferedUpstreamAndGivesTheSameKeypointsCopiedOrMapped) {
  const cv::Mat gray = load_gray("astronaut.png");
  ASSERT_FALSE(gray.empty());
  const auto copied = keypoints_from_pinned_then_pageable(gray, "host-frame-access=copy");
  const auto mapped = keypoints_from_pinned_then_pageable(gray, "host-frame-access=mapped");
  ASSERT_EQ(copied.size(), 2u);
  ASSERT_EQ(mapped.size(), 2u);
  ASSERT_GT(copied[0].size(), 50u);
  EXPECT_TRUE(same_keypoints(copied[0], copied[1]));
  EXPECT_TRUE(same_keypoints(copied[0], mapped[0]));
  EXPECT_TRUE(same_keypoints(copied[0], mapped[1]));
}

GstPadProbeReturn count_pinned(GstPad*, GstPadProbeInfo* info, gpointer counts) {
  auto* n = static_cast<int*>(counts);
  ++n[0];
  if (std::strcmp(allocator_of(GST_PAD_PROBE_INFO_BUFFER(info)), "GpusiftPinnedHost") == 0)
    ++n[1];
  return GST_PAD_PROBE_OK;
}

TEST(CudaFilterPinnedMemory, UpstreamElementsFillItAndTheCpuBackendOffersNone) {
  for (const char* backend : {"cuda", "cpu"}) {
    GstElement* pipeline = gst_parse_launch(
        (std::string("videotestsrc num-buffers=5 ! video/x-raw,format=NV12,width=640,height=360 "
                     "! gpusiftfilter name=f backend=") +
         backend + " ! fakesink")
            .c_str(),
        nullptr);
    ASSERT_NE(pipeline, nullptr);
    GstElement* filter = gst_bin_get_by_name(GST_BIN(pipeline), "f");
    GstPad* sink = gst_element_get_static_pad(filter, "sink");
    int counts[2] = {0, 0};
    gst_pad_add_probe(sink, GST_PAD_PROBE_TYPE_BUFFER, count_pinned, counts, nullptr);
    EXPECT_EQ(gst_test::play_until_end(pipeline, 30 * GST_SECOND), GST_MESSAGE_EOS);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    EXPECT_EQ(counts[0], 5) << backend;
    EXPECT_EQ(counts[1], std::strcmp(backend, "cuda") == 0 ? 5 : 0) << backend;
    gst_object_unref(sink);
    gst_object_unref(filter);
    gst_object_unref(pipeline);
  }
}

// Holds nearly all free GPU memory for its lifetime.
class GpuMemoryHog {
 public:
  GpuMemoryHog() {
    for (void* p = nullptr; cudaMalloc(&p, size_t(256) << 20) == cudaSuccess;)
      blocks_.push_back(p);
    cudaGetLastError();
  }
  ~GpuMemoryHog() {
    for (void* p : blocks_)
      cudaFree(p);
  }

 private:
  std::vector<void*> blocks_;
};

bool bus_has_error(GstBus* bus, GQuark domain, gint code) {
  bool found = false;
  while (GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR)) {
    GError* error = nullptr;
    gst_message_parse_error(m, &error, nullptr);
    found |= code < 0 ? error->domain == domain : g_error_matches(error, domain, code);
    g_clear_error(&error);
    gst_message_unref(m);
  }
  return found;
}

TEST(CudaFilterFailures, OutOfGpuMemoryMidStreamIsAnErrorAndANewStreamWorks) {
  const cv::Mat small = resized(load_gray("astronaut.png"), 640, 480);
  const cv::Mat big = resized(load_gray("astronaut.png"), 3840, 2160);
  GstHarness* h = gst_harness_new("gpusiftfilter");
  gst_util_set_object_arg(G_OBJECT(h->element), "backend", "cuda");
  gst_util_set_object_arg(G_OBJECT(h->element), "upscale", "true");
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(h->element, bus);
  gst_harness_set_src_caps_str(h, caps_string(GST_VIDEO_FORMAT_GRAY8, 640, 480).c_str());
  ASSERT_EQ(gst_harness_push(h, make_frame(small, GST_VIDEO_FORMAT_GRAY8)), GST_FLOW_OK);
  gst_buffer_unref(gst_harness_pull(h));
  GstFlowReturn flow;
  {
    GpuMemoryHog hog;
    gst_harness_set_src_caps_str(h, caps_string(GST_VIDEO_FORMAT_GRAY8, 3840, 2160).c_str());
    flow = gst_harness_push(h, make_frame(big, GST_VIDEO_FORMAT_GRAY8));
  }
  EXPECT_EQ(flow, GST_FLOW_ERROR);
  EXPECT_TRUE(bus_has_error(bus, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT));
  gst_bus_set_flushing(bus, TRUE);
  gst_object_unref(bus);
  gst_harness_teardown(h);

  const MetaCopy after =
      run_one_frame("gpusiftfilter name=f backend=cuda", big, GST_VIDEO_FORMAT_GRAY8);
  EXPECT_TRUE(after.found);
  EXPECT_GT(after.raw.size(), 100u);
}

TEST(CudaFilterFailures, StartingWithoutGpuMemoryFailsTheStateChangeWithAnError) {
  GpuMemoryHog hog;
  GstElement* pipeline = gst_parse_launch(
      "videotestsrc num-buffers=2 ! video/x-raw,format=NV12,width=320,height=240 ! "
      "gpusiftfilter backend=cuda max-keypoints=4000000 ! fakesink",
      nullptr);
  ASSERT_NE(pipeline, nullptr);
  EXPECT_EQ(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  GstBus* bus = gst_element_get_bus(pipeline);
  EXPECT_TRUE(bus_has_error(bus, GST_RESOURCE_ERROR, -1));
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

// Sets `pipeline` playing and waits up to a minute for its end: true at EOS (still PLAYING).
bool plays_to_eos(GstElement* pipeline) {
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstBus* bus = gst_element_get_bus(pipeline);
  GstMessage* end = gst_bus_timed_pop_filtered(
      bus, 60 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  const bool eos = end && GST_MESSAGE_TYPE(end) == GST_MESSAGE_EOS;
  if (end)
    gst_message_unref(end);
  gst_object_unref(bus);
  return eos;
}

size_t used_bytes_on(int device) {
  int previous = 0;
  cudaGetDevice(&previous);
  cudaSetDevice(device);
  size_t free = 0, total = 0;
  cudaMemGetInfo(&free, &total);
  cudaSetDevice(previous);
  return total - free;
}

// Two filters of one pipeline on two GPUs (cuda-device-id 0 and 1): each opens a context on its
// own device, although the first one's context is offered to the second through the context
// query, and both reach EOS. Where each runs is told by the memory its extractor holds there.
TEST(CudaFilterDevices, FiltersOfOnePipelineRunOnTheirOwnGpus) {
  int devices = 0;
  cudaGetDeviceCount(&devices);
  if (devices < 2)
    GTEST_SKIP() << "needs two CUDA devices, " << devices << " present";
  const size_t before[2] = {used_bytes_on(0), used_bytes_on(1)};
  GstElement* pipeline = gst_parse_launch(
      "videotestsrc num-buffers=10 pattern=smpte ! "
      "video/x-raw,format=NV12,width=1920,height=1080 ! "
      "tee name=t t. ! queue ! gpusiftfilter backend=cuda cuda-device-id=0 ! fakesink "
      "t. ! queue ! gpusiftfilter backend=cuda cuda-device-id=1 ! fakesink",
      nullptr);
  ASSERT_NE(pipeline, nullptr);
  EXPECT_TRUE(plays_to_eos(pipeline));
  // Still PLAYING: each extractor holds its buffers (about 160 MiB at 1080p) on its device.
  const size_t held = size_t(64) << 20;
  EXPECT_GT(used_bytes_on(0), before[0] + held);
  EXPECT_GT(used_bytes_on(1), before[1] + held);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}

TEST(CudaFilterFailures, HardwareDecodedH264CarriesMetaOnEveryFrame) {
  const std::string clip = test_data_path("clip-h264.mp4");
  if (!g_file_test(clip.c_str(), G_FILE_TEST_EXISTS))
    GTEST_SKIP() << clip << " not carried";
  GstElement* pipeline =
      gst_parse_launch(("filesrc location=" + clip +
                        " ! qtdemux ! h264parse ! nvh264dec ! gpusiftfilter name=f backend=cuda ! "
                        "fakesink name=sink")
                           .c_str(),
                       nullptr);
  ASSERT_NE(pipeline, nullptr);
  int frames = 0, with_meta = 0;
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  GstPad* pad = gst_element_get_static_pad(sink, "sink");
  struct Counts {
    int* frames;
    int* with_meta;
  } counts{&frames, &with_meta};
  gst_pad_add_probe(
      pad, GST_PAD_PROBE_TYPE_BUFFER,
      [](GstPad*, GstPadProbeInfo* info, gpointer data) {
        auto* c = static_cast<Counts*>(data);
        ++*c->frames;
        if (gst_buffer_get_keypoints_meta(GST_PAD_PROBE_INFO_BUFFER(info)))
          ++*c->with_meta;
        return GST_PAD_PROBE_OK;
      },
      &counts, nullptr);
  gst_object_unref(pad);
  gst_object_unref(sink);
  EXPECT_TRUE(plays_to_eos(pipeline));
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  EXPECT_GT(frames, 10);
  EXPECT_EQ(with_meta, frames);
}

}  // namespace
}  // namespace gpusift::testing
