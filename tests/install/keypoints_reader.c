/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An application built outside the gpusift tree against the installed gstreamer-keypoints-1.0
 * (pkg-config only): runs gpusiftfilter from the installed plugin and reads the keypoints meta.
 *   keypoints-reader EXPECTED_PLUGIN_DIR
 * Exit 0 when every frame carried the meta with keypoints and the plugin came from that folder. */
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <stdio.h>
#include <string.h>

#define FRAMES 3

typedef struct {
  guint frames_with_meta;
  guint keypoints;
  guint descriptor_size;
} Counts;

static GstPadProbeReturn count_keypoints(GstPad* pad, GstPadProbeInfo* info, gpointer data) {
  Counts* counts = data;
  const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(GST_PAD_PROBE_INFO_BUFFER(info));
  (void)pad;
  if (meta != NULL && meta->n_keypoints > 0) {
    counts->frames_with_meta++;
    counts->keypoints += meta->n_keypoints;
    counts->descriptor_size = meta->descriptor_size;
  }
  return GST_PAD_PROBE_OK;
}

static gboolean plugin_is_from(const gchar* folder) {
  GstElementFactory* factory = gst_element_factory_find("gpusiftfilter");
  GstPlugin* plugin = factory ? gst_plugin_feature_get_plugin(GST_PLUGIN_FEATURE(factory)) : NULL;
  const gchar* file = plugin ? gst_plugin_get_filename(plugin) : NULL;
  const gboolean inside = file != NULL && g_str_has_prefix(file, folder);
  printf("gpusiftfilter from %s\n", file ? file : "(nowhere)");
  if (plugin)
    gst_object_unref(plugin);
  if (factory)
    gst_object_unref(factory);
  return inside;
}

static gboolean run_to_eos(GstElement* pipeline) {
  GstBus* bus = gst_element_get_bus(pipeline);
  GstMessage* end;
  gboolean ok;
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  end = gst_bus_timed_pop_filtered(bus, 60 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  ok = end != NULL && GST_MESSAGE_TYPE(end) == GST_MESSAGE_EOS;
  if (end != NULL && !ok) {
    GError* error = NULL;
    gst_message_parse_error(end, &error, NULL);
    fprintf(stderr, "keypoints-reader: %s\n", error->message);
    g_clear_error(&error);
  }
  if (end != NULL)
    gst_message_unref(end);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(bus);
  return ok;
}

int main(int argc, char** argv) {
  GError* error = NULL;
  GstElement* pipeline;
  GstElement* sink;
  GstPad* pad;
  Counts counts = {0, 0, 0};
  gboolean ran;

  gst_init(&argc, &argv);
  if (argc != 2) {
    fprintf(stderr, "usage: keypoints-reader EXPECTED_PLUGIN_DIR\n");
    return 2;
  }
  pipeline = gst_parse_launch_full(
      "videotestsrc num-buffers=3 ! video/x-raw,format=GRAY8,width=320,height=240 ! "
      "gpusiftfilter backend=cpu ! fakesink name=sink",
      NULL, GST_PARSE_FLAG_FATAL_ERRORS, &error);
  if (error != NULL) {
    fprintf(stderr, "keypoints-reader: %s\n", error->message);
    g_clear_error(&error);
    if (pipeline)
      gst_object_unref(pipeline);
    return 1;
  }
  sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  pad = gst_element_get_static_pad(sink, "sink");
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, count_keypoints, &counts, NULL);
  gst_object_unref(pad);
  gst_object_unref(sink);
  ran = run_to_eos(pipeline);
  gst_object_unref(pipeline);

  printf("%u of %d frames with keypoints, %u keypoints, descriptor size %u\n",
         counts.frames_with_meta, FRAMES, counts.keypoints, counts.descriptor_size);
  return ran && plugin_is_from(argv[1]) && counts.frames_with_meta == FRAMES &&
                 counts.descriptor_size == 128
             ? 0
             : 1;
}
