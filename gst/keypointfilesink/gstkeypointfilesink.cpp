// SPDX-License-Identifier: LGPL-2.1-or-later
/* keypointfilesink: one record per buffer in a gpusift features file (gpusift/features_file.h),
 * written through to the kernel at every frame so that a write error stops the stream at the
 * frame it happens and a killed pipeline leaves every whole frame readable. A buffer without a
 * GstKeypointsMeta gets a record of zero keypoints flagged "no features", so that records stay
 * aligned with frames. */
#include "gstkeypointfilesink.h"

#include <gst/keypoints/gstkeypointsmeta.h>

#include <cerrno>
#include <cstddef>
#include <exception>

#include "gpusift/features_file.h"
#include "gpusift/features_file_writer.h"
#include "gpusift/keypoint.h"

/**
 * SECTION:element-keypointfilesink
 * @title: keypointfilesink
 *
 * keypointfilesink writes the #GstKeypointsMeta of every buffer it receives (the keypoints and
 * descriptors that gpusiftfilter upstream attached) as one record of a gpusift features file
 * (.gpsf, specified in gpusift/features_file.h): the buffer's PTS, the keypoints' coordinate
 * space, method and descriptor type, then the keypoints and the descriptor rows as the meta holds
 * them. A buffer without the meta gets a record of zero keypoints flagged "no features", so that
 * there is one record per frame. The element reads only the meta, never the pixels, so it takes
 * raw video of any format in any memory (video/x-raw(ANY)), CUDA memory included; it adds
 * nothing to the buffers and posts no per-frame message.
 *
 * The file named by #GstKeypointFileSink:location is created (or truncated) when the element
 * goes to READY, and the location can change only in the NULL state. Every record is handed to
 * the kernel as soon as it is written, so a pipeline that is killed leaves every whole frame
 * readable, and the file is synced to its device at EOS (give gst-launch-1.0 -e for live
 * sources). A missing location, a file that cannot be opened, a full disk or a failed write is a
 * RESOURCE error on the bus. The file is read by keypointmatcher (as its
 * #GstKeypointMatcher:reference), by tools/programs/python/gpusift_features.py (numpy) and by
 * C++ programs through gpusift/features_file_reader.h.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -e filesrc location=in.mp4 ! decodebin ! videoconvert ! gpusiftfilter ! \
 *     keypointfilesink location=out.gpsf
 * ]|
 * Writes the SIFT keypoints and descriptors of every frame of in.mp4 into out.gpsf.
 *
 * |[
 * gst-launch-1.0 filesrc location=poster.png ! decodebin ! videoconvert ! gpusiftfilter ! \
 *     keypointfilesink location=poster.gpsf
 * ]|
 * Writes the features of one image, a file of one record, which keypointmatcher
 * reference=poster.gpsf then finds in a video without computing them again.
 *
 * Since: 0.1
 */

GST_DEBUG_CATEGORY_STATIC(gst_keypoint_file_sink_debug);
#define GST_CAT_DEFAULT gst_keypoint_file_sink_debug

static_assert(sizeof(GstKeypoint) == sizeof(gpusift::Keypoint), "meta keypoints are written 1:1");
static_assert(offsetof(GstKeypoint, octave) == offsetof(gpusift::Keypoint, octave), "");
static_assert(offsetof(GstKeypoint, class_id) == offsetof(gpusift::Keypoint, class_id), "");
static_assert(GST_KEYPOINTS_METHOD_SURF == 1, "the file's method numbers are the meta's");
static_assert(GST_KEYPOINTS_DESCRIPTOR_FLOAT32 ==
                  static_cast<int>(gpusift::DescriptorStorage::kFloat32),
              "the file's descriptor types are the meta's");
static_assert(GST_KEYPOINTS_DESCRIPTOR_UINT8 ==
                  static_cast<int>(gpusift::DescriptorStorage::kUint8),
              "");

enum {
  PROP_0,
  PROP_LOCATION,
};

/* Only the meta is read, so any video, in any memory. */
static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE(
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-raw(ANY)"));

struct _GstKeypointFileSink {
  GstBaseSink parent;

  gchar* location;                     /* object lock */
  gboolean is_open;                    /* object lock: from READY to NULL; fixes the location */
  gpusift::FeaturesFileWriter* writer; /* streaming thread, between start and stop */
  guint caps_width;                    /* the frame size for records of buffers without the meta */
  guint caps_height;
  gboolean warned_no_meta;
};

G_DEFINE_TYPE_WITH_CODE(GstKeypointFileSink, gst_keypoint_file_sink, GST_TYPE_BASE_SINK,
                        GST_DEBUG_CATEGORY_INIT(gst_keypoint_file_sink_debug, "keypointfilesink", 0,
                                                "Keypoint file sink"))
GST_ELEMENT_REGISTER_DEFINE(keypointfilesink, "keypointfilesink", GST_RANK_NONE,
                            GST_TYPE_KEYPOINT_FILE_SINK)

namespace {

gchar* current_location(GstKeypointFileSink* self) {
  GST_OBJECT_LOCK(self);
  gchar* location = g_strdup(self->location);
  GST_OBJECT_UNLOCK(self);
  return location;
}

void set_open(GstKeypointFileSink* self, gboolean open) {
  GST_OBJECT_LOCK(self);
  self->is_open = open;
  GST_OBJECT_UNLOCK(self);
}

void post_write_error(GstKeypointFileSink* self, const gpusift::FeaturesFileError& error) {
  const std::string& path = self->writer->path();
  if (error.system_errno() == ENOSPC) {
    GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT,
                      ("No space left on the device of file \"%s\".", path.c_str()),
                      ("%s", error.what()));
  } else {
    GST_ELEMENT_ERROR(self, RESOURCE, WRITE, ("Could not write to file \"%s\".", path.c_str()),
                      ("%s", error.what()));
  }
}

gpusift::FeaturesRecordHeader record_header(GstKeypointFileSink* self, GstBuffer* buffer,
                                            const GstKeypointsMeta* meta) {
  gpusift::FeaturesRecordHeader header;
  header.pts = GST_BUFFER_PTS(buffer);
  if (meta == nullptr) {
    header.flags = gpusift::kFeaturesRecordNoFeatures;
    header.width = self->caps_width;
    header.height = self->caps_height;
    return header;
  }
  header.width = meta->width;
  header.height = meta->height;
  header.method = static_cast<uint32_t>(meta->method);
  header.descriptor_type = static_cast<gpusift::DescriptorStorage>(meta->descriptor_type);
  header.descriptor_size =
      meta->descriptor_type == GST_KEYPOINTS_DESCRIPTOR_NONE ? 0 : meta->descriptor_size;
  header.n_keypoints = meta->n_keypoints;
  return header;
}

}  // namespace

static void gst_keypoint_file_sink_set_property(GObject* object, guint prop_id, const GValue* value,
                                                GParamSpec* pspec) {
  GstKeypointFileSink* self = GST_KEYPOINT_FILE_SINK(object);
  switch (prop_id) {
    case PROP_LOCATION:
      GST_OBJECT_LOCK(self);
      if (self->is_open) {
        GST_OBJECT_UNLOCK(self);
        g_warning("keypointfilesink: location cannot change while the file is open (%s)",
                  GST_OBJECT_NAME(self));
        return;
      }
      g_free(self->location);
      self->location = g_value_dup_string(value);
      GST_OBJECT_UNLOCK(self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
}

static void gst_keypoint_file_sink_get_property(GObject* object, guint prop_id, GValue* value,
                                                GParamSpec* pspec) {
  GstKeypointFileSink* self = GST_KEYPOINT_FILE_SINK(object);
  switch (prop_id) {
    case PROP_LOCATION:
      GST_OBJECT_LOCK(self);
      g_value_set_string(value, self->location);
      GST_OBJECT_UNLOCK(self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
}

static void gst_keypoint_file_sink_finalize(GObject* object) {
  GstKeypointFileSink* self = GST_KEYPOINT_FILE_SINK(object);
  delete self->writer;
  g_free(self->location);
  G_OBJECT_CLASS(gst_keypoint_file_sink_parent_class)->finalize(object);
}

static gboolean gst_keypoint_file_sink_start(GstBaseSink* sink) {
  GstKeypointFileSink* self = GST_KEYPOINT_FILE_SINK(sink);
  gchar* location = current_location(self);
  if (location == nullptr || location[0] == '\0') {
    GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND, ("No file name specified for writing."),
                      ("set the location property"));
    g_free(location);
    return FALSE;
  }
  try {
    self->writer = new gpusift::FeaturesFileWriter(location);
  } catch (const gpusift::FeaturesFileError& error) {
    if (error.code() == gpusift::FeaturesFileErrorCode::kOpenFailed) {
      GST_ELEMENT_ERROR(self, RESOURCE, OPEN_WRITE,
                        ("Could not open file \"%s\" for writing.", location),
                        ("%s", error.what()));
    } else if (error.system_errno() == ENOSPC) {
      GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT,
                        ("No space left on the device of file \"%s\".", location),
                        ("%s", error.what()));
    } else {
      GST_ELEMENT_ERROR(self, RESOURCE, WRITE, ("Could not write to file \"%s\".", location),
                        ("%s", error.what()));
    }
    g_free(location);
    return FALSE;
  } catch (const std::bad_alloc&) {
    GST_ELEMENT_ERROR(self, RESOURCE, OPEN_WRITE,
                      ("Could not open file \"%s\" for writing.", location), ("out of memory"));
    g_free(location);
    return FALSE;
  }
  GST_INFO_OBJECT(self, "writing features to %s", location);
  g_free(location);
  self->caps_width = 0;
  self->caps_height = 0;
  self->warned_no_meta = FALSE;
  set_open(self, TRUE);
  return TRUE;
}

static gboolean gst_keypoint_file_sink_stop(GstBaseSink* sink) {
  GstKeypointFileSink* self = GST_KEYPOINT_FILE_SINK(sink);
  gboolean ok = TRUE;
  if (self->writer != nullptr) {
    try {
      self->writer->close();
    } catch (const gpusift::FeaturesFileError& error) {
      post_write_error(self, error);
      ok = FALSE;
    }
    delete self->writer;
    self->writer = nullptr;
  }
  set_open(self, FALSE);
  return ok;
}

static gboolean gst_keypoint_file_sink_set_caps(GstBaseSink* sink, GstCaps* caps) {
  GstKeypointFileSink* self = GST_KEYPOINT_FILE_SINK(sink);
  const GstStructure* s = gst_caps_get_structure(caps, 0);
  gint width = 0, height = 0;
  if (s == nullptr || !gst_structure_get_int(s, "width", &width) ||
      !gst_structure_get_int(s, "height", &height) || width < 0 || height < 0) {
    width = 0;
    height = 0;
  }
  self->caps_width = static_cast<guint>(width);
  self->caps_height = static_cast<guint>(height);
  return TRUE;
}

static GstFlowReturn gst_keypoint_file_sink_render(GstBaseSink* sink, GstBuffer* buffer) {
  GstKeypointFileSink* self = GST_KEYPOINT_FILE_SINK(sink);
  const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(buffer);
  GError* inconsistency = nullptr;
  if (meta != nullptr && !gst_keypoints_meta_validate(meta, &inconsistency)) {
    // Its counts would send the writer past the meta's arrays.
    GST_ELEMENT_ERROR(
        self, STREAM, FORMAT, ("Inconsistent keypoints metadata on a buffer."),
        ("%s (the meta's fields were changed after it was added)", inconsistency->message));
    g_error_free(inconsistency);
    return GST_FLOW_ERROR;
  }
  if (meta == nullptr && !self->warned_no_meta) {
    GST_WARNING_OBJECT(self, "buffers without GstKeypointsMeta: writing records without features");
    self->warned_no_meta = TRUE;
  }
  const gpusift::FeaturesRecordHeader header = record_header(self, buffer, meta);
  const auto* keypoints =
      meta ? reinterpret_cast<const gpusift::Keypoint*>(meta->keypoints) : nullptr;
  try {
    self->writer->write_frame(header, keypoints, meta ? meta->descriptors : nullptr);
  } catch (const gpusift::FeaturesFileError& error) {
    if (error.code() == gpusift::FeaturesFileErrorCode::kInvalidArgument) {
      GST_ELEMENT_ERROR(self, STREAM, FORMAT, ("Invalid keypoints meta."), ("%s", error.what()));
    } else {
      post_write_error(self, error);
    }
    return GST_FLOW_ERROR;
  }
  GST_LOG_OBJECT(self, "frame %" G_GUINT64_FORMAT ": %u keypoints", self->writer->frames_written(),
                 header.n_keypoints);
  return GST_FLOW_OK;
}

/* At EOS the records are synced to the device, and a failure is posted before EOS is. */
static gboolean gst_keypoint_file_sink_event(GstBaseSink* sink, GstEvent* event) {
  GstKeypointFileSink* self = GST_KEYPOINT_FILE_SINK(sink);
  if (GST_EVENT_TYPE(event) == GST_EVENT_EOS && self->writer != nullptr) {
    try {
      self->writer->sync();
    } catch (const gpusift::FeaturesFileError& error) {
      post_write_error(self, error);
      gst_event_unref(event);
      return FALSE;
    }
  }
  return GST_BASE_SINK_CLASS(gst_keypoint_file_sink_parent_class)->event(sink, event);
}

static void gst_keypoint_file_sink_class_init(GstKeypointFileSinkClass* klass) {
  GObjectClass* gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
  GstBaseSinkClass* sink_class = GST_BASE_SINK_CLASS(klass);

  gobject_class->set_property = gst_keypoint_file_sink_set_property;
  gobject_class->get_property = gst_keypoint_file_sink_get_property;
  gobject_class->finalize = gst_keypoint_file_sink_finalize;

  g_object_class_install_property(
      gobject_class, PROP_LOCATION,
      g_param_spec_string("location", "File location",
                          "Features file to write, created or truncated when the element goes to "
                          "READY; settable in the NULL state only, as filesink's",
                          nullptr,
                          static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)));

  gst_element_class_set_static_metadata(
      element_class, "Keypoint file sink", "Sink/File",
      "Writes each buffer's GstKeypointsMeta (keypoints and descriptors) as one record of a "
      "gpusift features file (.gpsf), an empty record flagged \"no features\" for a buffer "
      "without the meta; reads only the meta and adds nothing to the buffer",
      "gpusift");
  gst_element_class_add_static_pad_template(element_class, &sink_template);

  sink_class->start = GST_DEBUG_FUNCPTR(gst_keypoint_file_sink_start);
  sink_class->stop = GST_DEBUG_FUNCPTR(gst_keypoint_file_sink_stop);
  sink_class->set_caps = GST_DEBUG_FUNCPTR(gst_keypoint_file_sink_set_caps);
  sink_class->render = GST_DEBUG_FUNCPTR(gst_keypoint_file_sink_render);
  sink_class->event = GST_DEBUG_FUNCPTR(gst_keypoint_file_sink_event);
}

static void gst_keypoint_file_sink_init(GstKeypointFileSink* self) {
  gst_base_sink_set_sync(GST_BASE_SINK(self), FALSE);
}
