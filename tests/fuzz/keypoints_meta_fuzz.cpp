// SPDX-License-Identifier: LGPL-2.1-or-later
// The keypoints and tracks metas with arbitrary field values, as C code in a probe could leave
// them: made from the input's arrays, then every public field overwritten from the input. The
// library's readers (validate, the accessors, the COPY and SCALE transforms) must refuse what
// does not match the arrays and never read past them; what they accept must be consistent.
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/keypoints/gstkeypointstracksmeta.h>
#include <gst/video/video.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

// Reads the input front to back; zeros once it is used up.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  template <class T>
  T take() {
    T value{};
    const size_t n = size_ - used_ < sizeof(T) ? size_ - used_ : sizeof(T);
    std::memcpy(&value, data_ + used_, n);
    used_ += n;
    return value;
  }
  GBytes* bytes(size_t size) {
    const size_t n = size_ - used_ < size ? size_ - used_ : size;
    GBytes* bytes = g_bytes_new(data_ + used_, n);
    used_ += n;
    return bytes;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t used_ = 0;
};

void ignore_log(const gchar*, GLogLevelFlags, const gchar*, gpointer) {}

void read_keypoints_meta(GstBuffer* buffer, GstKeypointsMeta* meta) {
  GError* error = nullptr;
  const gboolean valid = gst_keypoints_meta_validate(meta, &error);
  if (error)
    g_error_free(error);
  GBytes* keypoints = gst_keypoints_meta_get_keypoints_bytes(meta);
  if (valid != (keypoints != nullptr))
    std::abort();
  if (keypoints) {
    // What is accepted is read whole, as the elements do.
    if (g_bytes_get_size(keypoints) != meta->n_keypoints * sizeof(GstKeypoint))
      std::abort();
    volatile float sum = 0;
    for (guint i = 0; i < meta->n_keypoints; i++)
      sum = sum + meta->keypoints[i].x;
    g_bytes_unref(keypoints);
  }
  GstBuffer* array = gst_keypoints_meta_get_descriptors_buffer(meta);
  if (array)
    gst_buffer_unref(array);
  GstBuffer* copy = gst_buffer_copy(buffer);
  if ((gst_buffer_get_keypoints_meta(copy) != nullptr) != static_cast<bool>(valid))
    std::abort();
  gst_buffer_unref(copy);
  GstVideoInfo in, out;
  gst_video_info_set_format(&in, GST_VIDEO_FORMAT_GRAY8, 64, 48);
  gst_video_info_set_format(&out, GST_VIDEO_FORMAT_GRAY8, 32, 40);
  GstVideoMetaTransform scale = {&in, &out};
  GstBuffer* scaled = gst_buffer_new();
  meta->meta.info->transform_func(scaled, &meta->meta, buffer,
                                  gst_video_meta_transform_scale_get_quark(), &scale);
  gst_buffer_unref(scaled);
}

void read_tracks_meta(GstBuffer* buffer, GstKeypointsTracksMeta* meta) {
  const gboolean valid = gst_keypoints_tracks_meta_validate(meta, nullptr);
  GstBuffer* tracks = gst_keypoints_tracks_meta_get_tracks_buffer(meta);
  if (valid != (tracks != nullptr))
    std::abort();
  if (tracks)
    gst_buffer_unref(tracks);
  GstBuffer* copy = gst_buffer_copy(buffer);
  gst_buffer_unref(copy);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool initialised = [] {
    g_setenv("GST_REGISTRY_DISABLE", "yes", TRUE);
    gst_init(nullptr, nullptr);
    // Criticals are what a refused meta gives; they must not end the run.
    g_log_set_handler("GstKeypoints", G_LOG_LEVEL_MASK, ignore_log, nullptr);
    g_log_set_default_handler(ignore_log, nullptr);
    return true;
  }();
  (void)initialised;
  Input input(data, size);
  GstBuffer* buffer = gst_buffer_new();

  // The arrays: up to 64 keypoints, rows of up to 32 values.
  const guint n = input.take<uint8_t>() % 65;
  const auto type = static_cast<GstKeypointsDescriptorType>(input.take<uint8_t>() % 3);
  const guint row = type == GST_KEYPOINTS_DESCRIPTOR_NONE ? 0 : 1 + input.take<uint8_t>() % 32;
  GBytes* keypoints = input.bytes(n * sizeof(GstKeypoint));
  const gsize value = gst_keypoints_descriptor_type_element_size(type);
  GBytes* descriptors = row ? input.bytes(static_cast<size_t>(n) * row * value) : nullptr;
  GstKeypointsMeta* meta = gst_buffer_add_keypoints_meta_from_bytes(
      buffer, GST_KEYPOINTS_METHOD_SIFT, 64, 48, keypoints, type, row, descriptors);
  g_bytes_unref(keypoints);
  if (descriptors)
    g_bytes_unref(descriptors);
  GBytes* track_bytes = input.bytes((input.take<uint8_t>() % 65) * sizeof(GstKeypointTrack));
  GstKeypointMotion motion;
  gst_keypoint_motion_init(&motion);
  GstKeypointsTracksMeta* tracks =
      gst_buffer_add_keypoints_tracks_meta_from_bytes(buffer, 64, 48, track_bytes, &motion);
  g_bytes_unref(track_bytes);

  // The lies: each field kept or overwritten, as a flag byte says.
  const uint16_t lies = input.take<uint16_t>();
  if (meta) {
    if (lies & 1)
      meta->n_keypoints = input.take<guint>();
    if (lies & 2)
      meta->descriptor_size = input.take<guint>();
    if (lies & 4)
      meta->descriptor_type = static_cast<GstKeypointsDescriptorType>(input.take<gint>());
    if (lies & 8)
      meta->method = static_cast<GstKeypointsMethod>(input.take<gint>());
    if (lies & 16)
      meta->width = input.take<guint>();
    if (lies & 32)
      meta->height = input.take<guint>();
    if (lies & 64)  // elsewhere by whole keypoints; as an integer, since it may be null
      meta->keypoints = reinterpret_cast<const GstKeypoint*>(
          reinterpret_cast<uintptr_t>(meta->keypoints) +
          static_cast<uintptr_t>(input.take<int8_t>()) * sizeof(GstKeypoint));
    read_keypoints_meta(buffer, meta);
  }
  if (tracks) {
    if (lies & 128)
      tracks->n_tracks = input.take<guint>();
    if (lies & 256)
      tracks->motion.model = static_cast<GstKeypointMotionModel>(input.take<gint>());
    if (lies & 512)
      tracks->motion.inliers = input.take<guint>();
    if (lies & 1024)
      tracks->motion.matrix[input.take<uint8_t>() % 9] = input.take<double>();
    read_tracks_meta(buffer, tracks);
  }
  // The buffer's own free must not trip over the lies either.
  gst_buffer_unref(buffer);
  return 0;
}
