// SPDX-License-Identifier: LGPL-2.1-or-later
// Every element that reads the keypoints metas, and the meta's SCALE transform, against a meta
// whose fields a probe changed after gpusiftfilter added it: counts far too large, one too many
// or one too few, a wrong descriptor size or type, one track too many. Each element stops the
// pipeline with an error that names the field, and never reads past the meta's arrays (the
// sanitizer builds run this suite too); a scaler drops the meta with a critical and the stream
// goes on. Built twice: on the CPU backend here, and with GPUSIFT_LYING_META_CUDA on the CUDA
// backend, where the tracker and the matcher see gpusiftfilter's device descriptors.
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/keypoints/gstkeypointstracksmeta.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gst_test_support.h"
#include "scratch_dir_fixture.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

#ifdef GPUSIFT_LYING_META_CUDA
constexpr const char* kBackend = "cuda";
#else
constexpr const char* kBackend = "cpu";
#endif

// One way to lie, applied to the buffer's metas in place, and what the error must name.
struct Lie {
  const char* name;
  void (*apply)(GstBuffer* buffer);
  const char* says;
};

GstKeypointsMeta* keypoints_meta(GstBuffer* buffer) {
  return gst_buffer_get_keypoints_meta(buffer);
}

const Lie kKeypointLies[] = {
    {"far too many keypoints",
     [](GstBuffer* b) {
       keypoints_meta(b)->n_keypoints = keypoints_meta(b)->n_keypoints * 1000 + 7;
     },
     "n_keypoints is"},
    {"one keypoint too many", [](GstBuffer* b) { keypoints_meta(b)->n_keypoints += 1; },
     "n_keypoints is"},
    {"one keypoint too few", [](GstBuffer* b) { keypoints_meta(b)->n_keypoints -= 1; },
     "n_keypoints is"},
    {"descriptor size one more", [](GstBuffer* b) { keypoints_meta(b)->descriptor_size += 1; },
     "rows of 129 float32 values do not fit"},
    {"descriptor type uint8 for float rows",
     [](GstBuffer* b) { keypoints_meta(b)->descriptor_type = GST_KEYPOINTS_DESCRIPTOR_UINT8; },
     "rows of 128 uint8 values do not fit"},
    {"descriptor type out of range",
     [](GstBuffer* b) {
       keypoints_meta(b)->descriptor_type = static_cast<GstKeypointsDescriptorType>(7);
     },
     "descriptor_type 7 is not"},
};

// The probe on the liar's source pad applies the lie to every buffer.
GstPadProbeReturn apply_lie(GstPad*, GstPadProbeInfo* info, gpointer lie) {
  GstBuffer* buffer = GST_PAD_PROBE_INFO_BUFFER(info);
  if (gst_buffer_get_keypoints_meta(buffer) != nullptr)
    static_cast<const Lie*>(lie)->apply(buffer);
  return GST_PAD_PROBE_OK;
}

// How a pipeline ended: the error's debug text, or empty at EOS.
struct Ending {
  bool error = false;
  bool eos = false;
  std::string debug;
};

Ending run(GstElement* pipeline) {
  Ending ending;
  EXPECT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  GstBus* bus = gst_element_get_bus(pipeline);
  GstMessage* message = gst_bus_timed_pop_filtered(
      bus, 120 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
  if (message != nullptr && GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
    GError* error = nullptr;
    gchar* debug = nullptr;
    gst_message_parse_error(message, &error, &debug);
    ending.error = true;
    ending.debug = std::string(error->message) + " | " + (debug ? debug : "");
    g_error_free(error);
    g_free(debug);
  } else if (message != nullptr) {
    ending.eos = true;
  }
  if (message != nullptr)
    gst_message_unref(message);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  return ending;
}

class LyingMetaTest : public ScratchDirFixture {
 protected:
  // Two frames of a real photo, through gpusiftfilter with float descriptors, then the liar.
  std::string source(const char* format) const {
    return "filesrc location=\"" + test_data_path("astronaut.png") +
           "\" ! pngdec ! videoconvert ! videoscale ! video/x-raw,width=256,height=256,format=" +
           format + " ! imagefreeze num-buffers=2 ! gpusiftfilter backend=" + kBackend +
           " descriptor=float ! identity name=liar ! ";
  }

  GstElement* pipeline_with_lie(const std::string& description, const Lie& lie) {
    GError* error = nullptr;
    GstElement* pipeline = gst_parse_launch(description.c_str(), &error);
    EXPECT_EQ(error, nullptr) << (error ? error->message : "");
    if (error)
      g_error_free(error);
    GstElement* liar = gst_bin_get_by_name(GST_BIN(pipeline), "liar");
    GstPad* pad = gst_element_get_static_pad(liar, "src");
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, apply_lie, const_cast<Lie*>(&lie), nullptr);
    gst_object_unref(pad);
    gst_object_unref(liar);
    return pipeline;
  }

  // The consumer ends the stream with an error naming the lie.
  void expect_refused(const std::string& consumer, const char* format) {
    for (const Lie& lie : kKeypointLies) {
      SCOPED_TRACE(lie.name);
      GstElement* pipeline = pipeline_with_lie(source(format) + consumer, lie);
      const Ending ending = run(pipeline);
      gst_object_unref(pipeline);
      EXPECT_TRUE(ending.error);
      EXPECT_NE(ending.debug.find("Inconsistent keypoints metadata"), std::string::npos)
          << ending.debug;
      EXPECT_NE(ending.debug.find(lie.says), std::string::npos) << ending.debug;
    }
  }
};

TEST_F(LyingMetaTest, OverlayRefusesIt) {
  expect_refused("keypointoverlay ! fakesink", "I420");
}

TEST_F(LyingMetaTest, TrackerRefusesIt) {
  expect_refused(std::string("keypointtracker backend=") + kBackend + " ! fakesink", "GRAY8");
}

TEST_F(LyingMetaTest, MatcherRefusesIt) {
  expect_refused(std::string("keypointmatcher backend=") + kBackend + " reference=\"" +
                     test_data_path("astronaut.png") + "\" ! fakesink",
                 "GRAY8");
}

TEST_F(LyingMetaTest, FileSinkRefusesIt) {
  expect_refused("keypointfilesink location=\"" + path("lies.gpsf") + "\"", "GRAY8");
}

// A tracks meta with one track too many, behind a real tracker: the overlay draws trails from
// both metas and refuses the pair.
TEST_F(LyingMetaTest, OverlayRefusesATracksMetaWithATrackTooMany) {
  static const Lie kTrackLie = {"one track too many",
                                [](GstBuffer* b) {
                                  GstKeypointsTracksMeta* tracks =
                                      gst_buffer_get_keypoints_tracks_meta(b);
                                  if (tracks != nullptr)
                                    tracks->n_tracks += 1;
                                },
                                "n_tracks is"};
  const std::string description =
      "filesrc location=\"" + test_data_path("astronaut.png") +
      "\" ! pngdec ! videoconvert ! videoscale ! video/x-raw,width=256,height=256,format=I420 ! "
      "imagefreeze num-buffers=2 ! gpusiftfilter descriptor=float backend=" +
      kBackend + " ! keypointtracker backend=" + kBackend +
      " ! identity name=liar ! keypointoverlay ! fakesink";
  GstElement* pipeline = pipeline_with_lie(description, kTrackLie);
  const Ending ending = run(pipeline);
  gst_object_unref(pipeline);
  EXPECT_TRUE(ending.error);
  EXPECT_NE(ending.debug.find(kTrackLie.says), std::string::npos) << ending.debug;
}

// videoscale transforms the meta (SCALE): a lying one is dropped with a critical, the frames
// still flow, and none reaches the sink with a meta.
TEST_F(LyingMetaTest, ScalerDropsItWithACritical) {
  for (const Lie& lie : kKeypointLies) {
    SCOPED_TRACE(lie.name);
    const int criticals_before = gst_test::LogCounter::criticals();
    GstElement* pipeline = pipeline_with_lie(
        source("GRAY8") +
            "videoscale ! video/x-raw,width=128,height=96 ! appsink name=out sync=false",
        lie);
    GstElement* out = gst_bin_get_by_name(GST_BIN(pipeline), "out");
    ASSERT_NE(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    int frames = 0;
    while (GstSample* sample = gst_app_sink_pull_sample(GST_APP_SINK(out))) {
      EXPECT_EQ(gst_buffer_get_keypoints_meta(gst_sample_get_buffer(sample)), nullptr);
      gst_sample_unref(sample);
      ++frames;
    }
    EXPECT_TRUE(gst_app_sink_is_eos(GST_APP_SINK(out)));
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(out);
    gst_object_unref(pipeline);
    EXPECT_EQ(frames, 2);
    EXPECT_GE(gst_test::LogCounter::criticals(), criticals_before + frames);
  }
}

}  // namespace
}  // namespace gpusift::testing
