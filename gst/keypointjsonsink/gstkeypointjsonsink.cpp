// SPDX-License-Identifier: LGPL-2.1-or-later
/* keypointjsonsink: every buffer's metas as one line of JSON (JSON Lines), written to a file or
 * to stdout. The line is handed to the kernel at every frame, so that a reader following the
 * file (tail -f, a pipe) gets each frame as it passes and a killed pipeline leaves whole lines. */
#include "gstkeypointjsonsink.h"

#include <gst/video/video.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "base/property_field.h"
#include "base/sink_property_rule.h"
#include "results/results_properties.h"
#include "results/results_serializer.h"

/**
 * SECTION:element-keypointjsonsink
 * @title: keypointjsonsink
 *
 * keypointjsonsink writes one JSON object per buffer, one per line (JSON Lines), to the file
 * named by #GstKeypointJsonSink:location, or to stdout for "-". Each object carries the schema
 * version, the #GstKeypointJsonSink:stream-id, the frame's number and PTS (nanoseconds, null when
 * the buffer has none), the frame size, the features' method and count, and, when the metas are
 * there: the camera motion and track counts of keypointtracker and the objects keypointmatcher
 * found, each with a tracking id that stays while the object is found frame after frame. With
 * #GstKeypointJsonSink:include-tracks each track's id, age and position are listed, with
 * #GstKeypointJsonSink:include-keypoints every keypoint (without its descriptor). The fields are
 * documented in docs/results-json.md; docs/schema/gpusift-results-v1.schema.json is their JSON
 * Schema.
 *
 * Only the metas are read, never the pixels: any raw video in any memory goes in. A meta whose
 * fields were changed after it was added is a STREAM FORMAT error; a missing location, a file
 * that cannot be opened or a failed write a RESOURCE error. keypointmqttsink publishes the same
 * JSON to an MQTT broker.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -q videotestsrc num-buffers=60 pattern=ball ! gpusiftfilter ! keypointtracker ! \
 *     keypointjsonsink location=- stream-id=cam0
 * ]|
 * Prints one line of JSON per frame: keypoint count, camera motion and track counts (-q keeps
 * gst-launch-1.0's own lines off stdout).
 *
 * Since: 0.1
 */

GST_DEBUG_CATEGORY_STATIC(gst_keypoint_json_sink_debug);
#define GST_CAT_DEFAULT gst_keypoint_json_sink_debug

namespace {

struct JsonSinkSettings {
  std::string location;
  gpusift::results::ResultsSettings results;
};

enum {
  PROP_0,
  PROP_LOCATION,
  PROP_STREAM_ID,  // and the two after it: install_results_properties()
};

gpusift::gst::PropertyTable<JsonSinkSettings>& json_sink_properties() {
  static gpusift::gst::PropertyTable<JsonSinkSettings> table;
  return table;
}

}  // namespace

/* Only the metas are read, so any video, in any memory. */
static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE(
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-raw(ANY)"));

struct _GstKeypointJsonSink {
  GstBaseSink parent;

  JsonSinkSettings* settings;                   /* object lock */
  FILE* file;                                   /* streaming thread, between start and stop */
  gboolean owns_file;                           /* FALSE for stdout */
  std::string* path;                            /* what errors name */
  gpusift::results::ResultsSerializer* results; /* streaming thread */
  std::string* line;                            /* the line being written, kept for its capacity */
};

G_DEFINE_TYPE_WITH_CODE(GstKeypointJsonSink, gst_keypoint_json_sink, GST_TYPE_BASE_SINK,
                        GST_DEBUG_CATEGORY_INIT(gst_keypoint_json_sink_debug, "keypointjsonsink", 0,
                                                "Keypoint results JSON sink"))
GST_ELEMENT_REGISTER_DEFINE(keypointjsonsink, "keypointjsonsink", GST_RANK_NONE,
                            GST_TYPE_KEYPOINT_JSON_SINK)

namespace {

void post_write_error(GstKeypointJsonSink* self, int error) {
  if (error == ENOSPC) {
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT,
                      ("No space left on the device of file \"%s\".", self->path->c_str()),
                      ("%s", g_strerror(error)));
  } else {
    GST_ELEMENT_ERROR(self, RESOURCE, WRITE,
                      ("Could not write to file \"%s\".", self->path->c_str()),
                      ("%s", g_strerror(error)));
  }
}

// Hands what the stream has buffered to the kernel; errno of the failure, 0 on success.
int flush_file(FILE* file) {
  errno = 0;
  if (fflush(file) != 0)
    return errno != 0 ? errno : EIO;
  return 0;
}

}  // namespace

static void gst_keypoint_json_sink_set_property(GObject* object, guint prop_id, const GValue* value,
                                                GParamSpec* pspec) {
  GstKeypointJsonSink* self = GST_KEYPOINT_JSON_SINK(object);
  if (!gpusift::gst::sink_property_settable_now(GST_ELEMENT(self), pspec))
    return;
  GST_OBJECT_LOCK(self);
  json_sink_properties().set(self->settings, prop_id, value);
  GST_OBJECT_UNLOCK(self);
}

static void gst_keypoint_json_sink_get_property(GObject* object, guint prop_id, GValue* value,
                                                GParamSpec* pspec) {
  GstKeypointJsonSink* self = GST_KEYPOINT_JSON_SINK(object);
  GST_OBJECT_LOCK(self);
  json_sink_properties().get(*self->settings, prop_id, value);
  GST_OBJECT_UNLOCK(self);
  (void)pspec;
}

static void gst_keypoint_json_sink_finalize(GObject* object) {
  GstKeypointJsonSink* self = GST_KEYPOINT_JSON_SINK(object);
  delete self->line;
  delete self->results;
  delete self->path;
  delete self->settings;
  G_OBJECT_CLASS(gst_keypoint_json_sink_parent_class)->finalize(object);
}

static gboolean gst_keypoint_json_sink_start(GstBaseSink* sink) {
  GstKeypointJsonSink* self = GST_KEYPOINT_JSON_SINK(sink);
  GST_OBJECT_LOCK(self);
  const std::string location = self->settings->location;
  GST_OBJECT_UNLOCK(self);
  if (location.empty()) {
    GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND, ("No file name specified for writing."),
                      ("set the location property (\"-\" for stdout)"));
    return FALSE;
  }
  if (location == "-") {
    self->file = stdout;
    self->owns_file = FALSE;
    *self->path = "stdout";
  } else {
    self->file = fopen(location.c_str(), "w");
    if (self->file == nullptr) {
      const int error = errno;
      GST_ELEMENT_ERROR(self, RESOURCE, OPEN_WRITE,
                        ("Could not open file \"%s\" for writing.", location.c_str()),
                        ("%s", g_strerror(error)));
      return FALSE;
    }
    self->owns_file = TRUE;
    *self->path = location;
  }
  delete self->results;
  self->results = new gpusift::results::ResultsSerializer();
  GST_INFO_OBJECT(self, "writing results JSON to %s", self->path->c_str());
  return TRUE;
}

static gboolean gst_keypoint_json_sink_stop(GstBaseSink* sink) {
  GstKeypointJsonSink* self = GST_KEYPOINT_JSON_SINK(sink);
  gboolean ok = TRUE;
  if (self->file != nullptr) {
    int error = flush_file(self->file);
    if (self->owns_file && fclose(self->file) != 0 && error == 0)
      error = errno != 0 ? errno : EIO;
    if (error != 0) {
      post_write_error(self, error);
      ok = FALSE;
    }
    self->file = nullptr;
  }
  delete self->results;
  self->results = nullptr;
  return ok;
}

static gboolean gst_keypoint_json_sink_set_caps(GstBaseSink* sink, GstCaps* caps) {
  GstKeypointJsonSink* self = GST_KEYPOINT_JSON_SINK(sink);
  self->results->set_frame_size_from_caps(caps);
  return TRUE;
}

static GstFlowReturn gst_keypoint_json_sink_render(GstBaseSink* sink, GstBuffer* buffer) {
  GstKeypointJsonSink* self = GST_KEYPOINT_JSON_SINK(sink);
  GST_OBJECT_LOCK(self);
  const gpusift::results::ResultsOptions options =
      self->settings->results.options(GST_OBJECT(self));
  GST_OBJECT_UNLOCK(self);

  GError* inconsistency = nullptr;
  if (!self->results->serialize(buffer, options, self->line, &inconsistency)) {
    GST_ELEMENT_ERROR(
        self, STREAM, FORMAT, ("Inconsistent keypoints metadata on a buffer."),
        ("%s (the meta's fields were changed after it was added)", inconsistency->message));
    g_error_free(inconsistency);
    return GST_FLOW_ERROR;
  }
  self->line->push_back('\n');
  errno = 0;
  if (fwrite(self->line->data(), 1, self->line->size(), self->file) != self->line->size()) {
    post_write_error(self, errno != 0 ? errno : EIO);
    return GST_FLOW_ERROR;
  }
  if (const int error = flush_file(self->file)) {
    post_write_error(self, error);
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static gboolean gst_keypoint_json_sink_event(GstBaseSink* sink, GstEvent* event) {
  GstKeypointJsonSink* self = GST_KEYPOINT_JSON_SINK(sink);
  switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_FLUSH_STOP:
    case GST_EVENT_STREAM_START:
      // What follows does not continue the frames before: objects get new ids.
      if (self->results != nullptr)
        self->results->forget_continuity();
      break;
    case GST_EVENT_EOS:
      // A regular file reaches its device before EOS is posted; a pipe or a terminal has no
      // device to sync.
      if (self->owns_file && self->file != nullptr) {
        struct stat st;
        const int fd = fileno(self->file);
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && fsync(fd) != 0) {
          post_write_error(self, errno);
          gst_event_unref(event);
          return FALSE;
        }
      }
      break;
    default:
      break;
  }
  return GST_BASE_SINK_CLASS(gst_keypoint_json_sink_parent_class)->event(sink, event);
}

static void gst_keypoint_json_sink_class_init(GstKeypointJsonSinkClass* klass) {
  GObjectClass* gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
  GstBaseSinkClass* sink_class = GST_BASE_SINK_CLASS(klass);

  gobject_class->set_property = gst_keypoint_json_sink_set_property;
  gobject_class->get_property = gst_keypoint_json_sink_get_property;
  gobject_class->finalize = gst_keypoint_json_sink_finalize;

  auto& table = json_sink_properties();
  // Settable in NULL only (no GST_PARAM_MUTABLE flag): the file is opened at NULL to READY.
  table.install(gobject_class, PROP_LOCATION,
                g_param_spec_string(
                    "location", "File location",
                    "File to write the JSON lines to, created or truncated when "
                    "the element goes to READY; \"-\" for stdout",
                    nullptr, static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)),
                [](JsonSinkSettings& s) { return gpusift::gst::PropertyField(&s.location); });
  gpusift::results::install_results_properties(gobject_class, &table, PROP_STREAM_ID);

  gst_element_class_set_static_metadata(
      element_class, "Keypoint results JSON sink", "Sink/File",
      "Writes each buffer's keypoint results (features, camera motion, tracks, found objects) as "
      "one line of JSON to a file or stdout; reads only the metas",
      "gpusift");
  gst_element_class_add_static_pad_template(element_class, &sink_template);

  sink_class->start = GST_DEBUG_FUNCPTR(gst_keypoint_json_sink_start);
  sink_class->stop = GST_DEBUG_FUNCPTR(gst_keypoint_json_sink_stop);
  sink_class->set_caps = GST_DEBUG_FUNCPTR(gst_keypoint_json_sink_set_caps);
  sink_class->render = GST_DEBUG_FUNCPTR(gst_keypoint_json_sink_render);
  sink_class->event = GST_DEBUG_FUNCPTR(gst_keypoint_json_sink_event);
}

static void gst_keypoint_json_sink_init(GstKeypointJsonSink* self) {
  self->settings = new JsonSinkSettings();
  self->path = new std::string();
  self->line = new std::string();
  gst_base_sink_set_sync(GST_BASE_SINK(self), FALSE);
}
