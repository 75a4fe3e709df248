// SPDX-License-Identifier: LGPL-2.1-or-later
// The keypoints and tracks metas with arbitrary field values, as C code in a probe could leave
// them: made from the input's arrays, then public fields overwritten from the input. Every reader
// of the meta library (validate, gst_buffer_get_*_meta, the arrays' bytes and buffer getters,
// the OpenCV helpers, the deprecated names, the COPY transform through gst_buffer_copy and
// gst_buffer_copy_region, the SCALE transform as videoscale calls it) must refuse what does not
// match the arrays, with a critical, and never read past them; what they accept must be read
// whole (ASan checks the bytes), and what the transforms make must pass validate (a valid tracks
// meta is always scaled: tests/fuzz/corpus/keypoints_meta/tracks-scale-motion-overflow* are the
// valid metas whose scaled motion overflowed).
//
// The input, front to back (zeros once it is used up):
//   u8 n_keypoints % 65, u8 descriptor type % 3, u8 row size % 32 + 1 (without type none),
//   the keypoints, the descriptor rows, u8 n_tracks % 65, the tracks,
//   u16 lies: each bit set takes one value, in bit order: n_keypoints, descriptor_size,
//     descriptor_type, method, width, height (u32 each), keypoints moved by i8 keypoints,
//     n_tracks (u32), motion.model (i32), motion.inliers (u32), motion.matrix[u8 % 9] (f64);
//   u16 more lies, in the same way: tracks width, tracks height (u32 each), tracks moved by i8
//     tracks, motion.matches (u32), motion.cumulative[u8 % 9] (f64), descriptors moved by i8
//     bytes, motion.valid (i32);
//   i32 width, i32 height of the SCALE transform's output (both 0: 32x40), u8 offset and u8 size
//   (0: the rest) of the region copy of the buffer's 64 bytes.
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/keypoints/gstkeypointstracksmeta.h>
#include <gst/video/video.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "fuzz_gstreamer.h"
#include "fuzz_input_reader.h"

#ifdef GPUSIFT_FUZZ_OPENCV
#include <gst/keypoints/gstkeypointsmeta-opencv.hpp>
#endif

namespace {

// The next `size` bytes of the input, fewer where it ends, as GBytes.
GBytes* take_gbytes(gpusift::fuzz::InputReader* input, size_t size) {
  size_t taken = 0;
  const uint8_t* at = input->take_bytes(size, &taken);
  return g_bytes_new(at, taken);
}

// A pointer moved by `by` elements of `size` bytes, as an integer, since it may be null.
template <class T>
const T* moved(const T* pointer, int8_t by, size_t size) {
  return reinterpret_cast<const T*>(reinterpret_cast<uintptr_t>(pointer) +
                                    static_cast<uintptr_t>(static_cast<intptr_t>(by) * size));
}

// The C enum fields hold whatever C code stored; C++ may not load such a value as the enum type
// (UBSan's enum check), so they are written and read as the integers they are.
template <class E>
void set_raw(E* field, gint value) {
  static_assert(sizeof(E) == sizeof(gint), "a C enum field is an int");
  std::memcpy(field, &value, sizeof value);
}
template <class E>
gint raw(const E& field) {
  gint value;
  std::memcpy(&value, &field, sizeof value);
  return value;
}

// Reads every byte of the meta's arrays, so that ASan sees a read past them.
void read_arrays(const GstKeypointsMeta* meta) {
  volatile uint8_t sum = 0;
  const auto* keypoints = reinterpret_cast<const uint8_t*>(meta->keypoints);
  for (size_t i = 0; i < meta->n_keypoints * sizeof(GstKeypoint); i++)
    sum = sum + keypoints[i];
  const auto* descriptors = static_cast<const uint8_t*>(meta->descriptors);
  const size_t row = meta->descriptor_size *
                     gst_keypoints_descriptor_type_element_size(
                         static_cast<GstKeypointsDescriptorType>(raw(meta->descriptor_type)));
  for (size_t i = 0; descriptors && i < meta->n_keypoints * row; i++)
    sum = sum + descriptors[i];
}

// A meta a transform or a copy made: it must pass validate, and it is read whole.
void check_made(GstKeypointsMeta* meta) {
  if (!gst_keypoints_meta_validate(meta, nullptr))
    std::abort();
  read_arrays(meta);
}

void read_keypoints_meta(GstBuffer* buffer, GstKeypointsMeta* meta, GstVideoMetaTransform* scale,
                         gsize region_offset, gssize region_size) {
  if (gst_buffer_get_keypoints_meta(buffer) != meta)
    std::abort();
  GError* error = nullptr;
  const gboolean valid = gst_keypoints_meta_validate(meta, &error);
  if (valid == (error != nullptr))
    std::abort();
  if (error)
    g_error_free(error);
  gst_keypoints_method_to_string(static_cast<GstKeypointsMethod>(raw(meta->method)));

  // Each getter gives something exactly when validate passes.
  GBytes* keypoints = gst_keypoints_meta_get_keypoints_bytes(meta);
  if (valid != (keypoints != nullptr))
    std::abort();
  if (keypoints) {
    if (g_bytes_get_size(keypoints) != meta->n_keypoints * sizeof(GstKeypoint))
      std::abort();
    g_bytes_unref(keypoints);
    read_arrays(meta);  // what is accepted is read through the fields, as the elements do
  }
  GBytes* descriptors = gst_keypoints_meta_get_descriptors_bytes(meta);
  if (descriptors) {
    if (!valid)
      std::abort();
    g_bytes_unref(descriptors);
  }
  GstBuffer* array = gst_keypoints_meta_get_keypoints_buffer(meta);
  if (valid != (array != nullptr))
    std::abort();
  if (array)
    gst_buffer_unref(array);
  array = gst_keypoints_meta_get_descriptors_buffer(meta);
  if (array)
    gst_buffer_unref(array);
#ifdef GPUSIFT_FUZZ_OPENCV
  if (gst_keypoints::to_cv_keypoints(meta).size() != (valid ? meta->n_keypoints : 0))
    std::abort();
  gst_keypoints::to_cv_descriptors(meta);
#endif

  // COPY, whole and a region: the copy carries the meta exactly when it is valid.
  GstBuffer* copy = gst_buffer_copy(buffer);
  GstKeypointsMeta* copied = gst_buffer_get_keypoints_meta(copy);
  if ((copied != nullptr) != static_cast<bool>(valid))
    std::abort();
  if (copied)
    check_made(copied);
  gst_buffer_unref(copy);
  copy = gst_buffer_copy_region(buffer, GST_BUFFER_COPY_ALL, region_offset, region_size);
  if (copy) {
    copied = gst_buffer_get_keypoints_meta(copy);
    if ((copied != nullptr) != static_cast<bool>(valid))
      std::abort();
    if (copied)
      check_made(copied);
    gst_buffer_unref(copy);
  }

  // SCALE, as GstBaseTransform's metadata copy calls it for videoscale.
  GstBuffer* scaled = gst_buffer_new();
  const gboolean made = meta->meta.info->transform_func(
      scaled, &meta->meta, buffer, gst_video_meta_transform_scale_get_quark(), scale);
  GstKeypointsMeta* result = gst_buffer_get_keypoints_meta(scaled);
  if (made != (result != nullptr))
    std::abort();
  if (result)
    check_made(result);
  gst_buffer_unref(scaled);
}

// A copy of the buffer (NULL: none made) carries the tracks meta exactly when it is valid, and
// then one that passes validate.
void check_tracks_copy(GstBuffer* copy, gboolean valid) {
  if (copy == nullptr)
    return;
  const GstKeypointsTracksMeta* copied = gst_buffer_get_keypoints_tracks_meta(copy);
  if ((copied != nullptr) != static_cast<bool>(valid))
    std::abort();
  if (copied && !gst_keypoints_tracks_meta_validate(copied, nullptr))
    std::abort();
  gst_buffer_unref(copy);
}

void read_tracks_meta(GstBuffer* buffer, GstKeypointsTracksMeta* meta, GstVideoMetaTransform* scale,
                      gsize region_offset, gssize region_size) {
  if (gst_buffer_get_keypoints_tracks_meta(buffer) != meta)
    std::abort();
  const gboolean valid = gst_keypoints_tracks_meta_validate(meta, nullptr);
  gst_keypoint_motion_model_to_string(static_cast<GstKeypointMotionModel>(raw(meta->motion.model)));
  GstBuffer* tracks = gst_keypoints_tracks_meta_get_tracks_buffer(meta);
  if (valid != (tracks != nullptr))
    std::abort();
  if (tracks) {
    if (gst_buffer_get_size(tracks) != meta->n_tracks * sizeof(GstKeypointTrack))
      std::abort();
    gst_buffer_unref(tracks);
    volatile uint64_t sum = 0;
    for (guint i = 0; i < meta->n_tracks; i++)
      sum = sum + meta->tracks[i].track_id;
  }
  // The deprecated names reach the same meta and the same checks.
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  if (gst_buffer_get_keypoint_tracks_meta(buffer) != meta)
    std::abort();
  tracks = gst_keypoint_tracks_meta_get_tracks_buffer(meta);
  G_GNUC_END_IGNORE_DEPRECATIONS
  if (valid != (tracks != nullptr))
    std::abort();
  if (tracks)
    gst_buffer_unref(tracks);

  check_tracks_copy(gst_buffer_copy(buffer), valid);
  check_tracks_copy(gst_buffer_copy_region(buffer, GST_BUFFER_COPY_ALL, region_offset, region_size),
                    valid);

  // SCALE: a valid meta is scaled to any positive size, into one that passes validate (a matrix
  // that the new coordinates cannot hold becomes the identity, not estimated).
  GstBuffer* scaled = gst_buffer_new();
  const gboolean made = meta->meta.info->transform_func(
      scaled, &meta->meta, buffer, gst_video_meta_transform_scale_get_quark(), scale);
  GstKeypointsTracksMeta* result = gst_buffer_get_keypoints_tracks_meta(scaled);
  if (made != (result != nullptr))
    std::abort();
  if (valid && !made && GST_VIDEO_INFO_WIDTH(scale->out_info) > 0 &&
      GST_VIDEO_INFO_HEIGHT(scale->out_info) > 0)
    std::abort();
  if (result && !gst_keypoints_tracks_meta_validate(result, nullptr))
    std::abort();
  gst_buffer_unref(scaled);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpusift::fuzz::init_gstreamer_quietly(false);
  gpusift::fuzz::InputReader input(data, size);
  // 64 bytes of memory, so that region copies have something to cut.
  GstBuffer* buffer = gst_buffer_new_allocate(nullptr, 64, nullptr);

  // The arrays: up to 64 keypoints, rows of up to 32 values.
  const guint n = input.take<uint8_t>() % 65;
  const auto type = static_cast<GstKeypointsDescriptorType>(input.take<uint8_t>() % 3);
  const guint row = type == GST_KEYPOINTS_DESCRIPTOR_NONE ? 0 : 1 + input.take<uint8_t>() % 32;
  GBytes* keypoints = take_gbytes(&input, n * sizeof(GstKeypoint));
  const gsize value = gst_keypoints_descriptor_type_element_size(type);
  GBytes* descriptors = row ? take_gbytes(&input, static_cast<size_t>(n) * row * value) : nullptr;
  GstKeypointsMeta* meta = gst_buffer_add_keypoints_meta_from_bytes(
      buffer, GST_KEYPOINTS_METHOD_SIFT, 64, 48, keypoints, type, row, descriptors);
  g_bytes_unref(keypoints);
  if (descriptors)
    g_bytes_unref(descriptors);
  GBytes* track_bytes =
      take_gbytes(&input, (input.take<uint8_t>() % 65) * sizeof(GstKeypointTrack));
  GstKeypointMotion motion;
  gst_keypoint_motion_init(&motion);
  GstKeypointsTracksMeta* tracks =
      gst_buffer_add_keypoints_tracks_meta_from_bytes(buffer, 64, 48, track_bytes, &motion);
  g_bytes_unref(track_bytes);

  // The lies, read in full before any is told, so that each keeps its place in the input.
  GstKeypointsMeta k = meta ? *meta : GstKeypointsMeta{};
  GstKeypointsTracksMeta t = tracks ? *tracks : GstKeypointsTracksMeta{};
  const uint16_t lies = input.take<uint16_t>();
  if (lies & 1)
    k.n_keypoints = input.take<guint>();
  if (lies & 2)
    k.descriptor_size = input.take<guint>();
  if (lies & 4)
    set_raw(&k.descriptor_type, input.take<gint>());
  if (lies & 8)
    set_raw(&k.method, input.take<gint>());
  if (lies & 16)
    k.width = input.take<guint>();
  if (lies & 32)
    k.height = input.take<guint>();
  if (lies & 64)
    k.keypoints = moved(k.keypoints, input.take<int8_t>(), sizeof(GstKeypoint));
  if (lies & 128)
    t.n_tracks = input.take<guint>();
  if (lies & 256)
    set_raw(&t.motion.model, input.take<gint>());
  if (lies & 512)
    t.motion.inliers = input.take<guint>();
  if (lies & 1024) {
    // The index first: in `a[i()] = v()` C++17 reads v() before i().
    const size_t at = input.take<uint8_t>() % 9;
    t.motion.matrix[at] = input.take<double>();
  }
  const uint16_t more = input.take<uint16_t>();
  if (more & 1)
    t.width = input.take<guint>();
  if (more & 2)
    t.height = input.take<guint>();
  if (more & 4)
    t.tracks = moved(t.tracks, input.take<int8_t>(), sizeof(GstKeypointTrack));
  if (more & 8)
    t.motion.matches = input.take<guint>();
  if (more & 16) {
    const size_t at = input.take<uint8_t>() % 9;
    t.motion.cumulative[at] = input.take<double>();
  }
  if (more & 32)
    k.descriptors = moved(static_cast<const uint8_t*>(k.descriptors), input.take<int8_t>(), 1);
  if (more & 64)
    t.motion.valid = input.take<gint>();

  // The SCALE transform's output size (videoscale's caps), and the region to copy.
  gint out_width = input.take<gint32>();
  gint out_height = input.take<gint32>();
  if (out_width == 0 && out_height == 0) {
    out_width = 32;
    out_height = 40;
  }
  gpusift::fuzz::ScaleTransform scale(out_width, out_height);
  const gsize region_offset = input.take<uint8_t>() % 64;
  const uint8_t region_size = input.take<uint8_t>();
  const gssize region = region_size ? region_size % (64 - region_offset) + 1 : -1;

  if (meta) {
    // Only the public fields change; the library's own references stay.
    k.meta = meta->meta;
    k.keypoint_bytes = meta->keypoint_bytes;
    k.descriptor_bytes = meta->descriptor_bytes;
    *meta = k;
    read_keypoints_meta(buffer, meta, scale.get(), region_offset, region);
  }
  if (tracks) {
    t.meta = tracks->meta;
    t.track_bytes = tracks->track_bytes;
    *tracks = t;
    read_tracks_meta(buffer, tracks, scale.get(), region_offset, region);
  }
  // The buffer's own free must not trip over the lies either.
  gst_buffer_unref(buffer);
  return 0;
}
