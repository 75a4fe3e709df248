// SPDX-License-Identifier: LGPL-2.1-or-later
/* Helpers shared by the GStreamer suites: GLib log counting and raw video buffers. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <atomic>
#include <mutex>
#include <string>

namespace gst_test {

/* Counts GLib warnings and criticals (g_return_if_fail, out-of-range g_object_set), so that tests
 * can expect them without making them fatal. */
class LogCounter {
 public:
  /* Once per process, before the tests run. */
  static void install() { g_log_set_writer_func(&LogCounter::write, nullptr, nullptr); }
  static int warnings() { return warnings_.load(); }
  static int criticals() { return criticals_.load(); }
  /* GLib's own refusal of a value outside a property's range (g_object_set_property): a warning
   * up to GLib 2.74 (Debian 12, JetPack 6), a critical from 2.76 on (Debian 13). */
  static int range_refusals() {
    return glib_check_version(2, 76, 0) == nullptr ? criticals() : warnings();
  }
  // The text of the latest critical, to check that it names the cause.
  static std::string last_critical() {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_critical_;
  }

 private:
  static GLogWriterOutput write(GLogLevelFlags level, const GLogField* fields, gsize n_fields,
                                gpointer user_data) {
    if (level & G_LOG_LEVEL_WARNING) {
      ++warnings_;
    }
    if (level & G_LOG_LEVEL_CRITICAL) {
      for (gsize i = 0; i < n_fields; i++) {
        if (g_strcmp0(fields[i].key, "MESSAGE") == 0 && fields[i].length < 0) {
          std::lock_guard<std::mutex> lock(mutex_);
          last_critical_ = static_cast<const char*>(fields[i].value);
        }
      }
      ++criticals_;
    }
    return g_log_writer_default(level, fields, n_fields, user_data);
  }
  static inline std::atomic<int> warnings_{0};
  static inline std::atomic<int> criticals_{0};
  static inline std::mutex mutex_;
  static inline std::string last_critical_;
};

// A property's value as gst_value_serialize writes it, to compare before and after a change.
inline std::string property_as_string(GstElement* element, const char* name) {
  GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(element), name);
  GValue value = G_VALUE_INIT;
  g_value_init(&value, spec->value_type);
  g_object_get_property(G_OBJECT(element), name, &value);
  gchar* text = gst_value_serialize(&value);
  std::string result = text ? text : "";
  g_free(text);
  g_value_unset(&value);
  return result;
}

inline GstVideoInfo video_info(GstVideoFormat format, int width, int height) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, static_cast<guint>(width), static_cast<guint>(height));
  return info;
}

inline std::string caps_string(GstVideoFormat format, int width, int height) {
  return std::string("video/x-raw,format=") + gst_video_format_to_string(format) +
         ",width=" + std::to_string(width) + ",height=" + std::to_string(height) +
         ",framerate=30/1";
}

/* Live objects of a type by name through the leaks tracer (the suites' main() switches it on), or
 * -1 without the tracer. The tracer's list holds a reference to every live object, and taking one
 * from an object that a streaming thread is releasing for the last time resurrects it half
 * disposed: so first wait for every task thread of the earlier pipelines to finish. */
inline int live_objects_named(const char* type_name) {
  gst_task_cleanup_all();
  GList* tracers = gst_tracing_get_active_tracers();
  int count = -1;
  for (GList* t = tracers; t; t = t->next) {
    if (g_strcmp0(G_OBJECT_TYPE_NAME(t->data), "GstLeaksTracer") != 0)
      continue;
    GstStructure* live = nullptr;
    g_signal_emit_by_name(t->data, "get-live-objects", &live);
    const GValue* objects = gst_structure_get_value(live, "live-objects-list");
    count = 0;
    for (guint i = 0; i < gst_value_list_get_size(objects); ++i) {
      const GstStructure* info = gst_value_get_structure(gst_value_list_get_value(objects, i));
      if (g_strcmp0(gst_structure_get_string(info, "type-name"), type_name) == 0)
        ++count;
    }
    gst_structure_free(live);
  }
  g_list_free_full(tracers, gst_object_unref);
  return count;
}

/* Sets the pipeline playing and waits up to `timeout` for its end: GST_MESSAGE_EOS or
 * GST_MESSAGE_ERROR, GST_MESSAGE_UNKNOWN when it would not start or did not end in time. The
 * pipeline is left as it is. */
inline GstMessageType play_until_end(GstElement* pipeline, GstClockTime timeout) {
  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    return GST_MESSAGE_UNKNOWN;
  GstBus* bus = gst_element_get_bus(pipeline);
  GstMessage* end = gst_bus_timed_pop_filtered(
      bus, timeout, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  const GstMessageType type = end ? GST_MESSAGE_TYPE(end) : GST_MESSAGE_UNKNOWN;
  if (end)
    gst_message_unref(end);
  gst_object_unref(bus);
  return type;
}

/* A frame with every byte set to fill. */
inline GstBuffer* make_video_buffer(GstVideoFormat format, int width, int height, guint8 fill) {
  const GstVideoInfo info = video_info(format, width, height);
  GstBuffer* buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
  gst_buffer_memset(buffer, 0, fill, GST_VIDEO_INFO_SIZE(&info));
  return buffer;
}

}  // namespace gst_test
