// SPDX-License-Identifier: LGPL-2.1-or-later
// The object meta (keypointmatcher's detections) with arbitrary values: made with arguments from
// the input (the add function refuses bad ones with a critical), then public fields overwritten
// from the input, as C code in a probe could leave them. The accessors (first, by label, count,
// nth, the label, the deprecated names) and the COPY and SCALE transforms must not crash or read
// out of bounds, and what the transforms make must have finite corners, as the add function
// guarantees.
//
// The input, front to back (zeros once it is used up):
//   u8 metas % 3 + 1; per meta: u8 label length % 16 and its bytes (a NUL ends it early),
//   u16 width, height, reference width, reference height, f64 homography[9], u16 matches,
//   inliers; then u16 lies: each bit set takes one value, in bit order: label (a raw u32 quark),
//   width, height, reference width, reference height (u32 each), corners[u8 % 8] (f64),
//   homography[u8 % 9] (f64), matches, inliers (u32 each); i32 width, i32 height of the SCALE
//   transform's output (both 0: 32x40).
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsobjectmeta.h>
#include <gst/video/video.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "fuzz_gstreamer.h"
#include "fuzz_input_reader.h"

namespace {

// A meta that the add function or a transform made: finite corners and homography.
void check_made(const GstKeypointsObjectMeta* meta) {
  for (double corner : meta->corners) {
    if (!std::isfinite(corner))
      std::abort();
  }
  for (double entry : meta->homography) {
    if (!std::isfinite(entry))
      std::abort();
  }
}

void read_metas(GstBuffer* buffer) {
  const guint n = gst_buffer_get_n_keypoints_object_metas(buffer);
  if ((n > 0) != (gst_buffer_get_keypoints_object_meta(buffer) != nullptr))
    std::abort();
  for (guint i = 0; i <= n; i++) {
    GstKeypointsObjectMeta* meta = gst_buffer_get_keypoints_object_meta_nth(buffer, i);
    if ((meta != nullptr) != (i < n))
      std::abort();
    if (meta == nullptr)
      continue;
    // A label that is no quark reads as NULL; a real one finds a meta of that label.
    const gchar* label = gst_keypoints_object_meta_get_label(meta);
    if (label) {
      GstKeypointsObjectMeta* found = gst_buffer_get_keypoints_object_meta_by_label(buffer, label);
      if (found == nullptr || found->label != meta->label)
        std::abort();
    }
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    if (gst_keypoint_object_meta_get_label(meta) != label)
      std::abort();
    G_GNUC_END_IGNORE_DEPRECATIONS
  }
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  if (gst_buffer_get_keypoint_object_meta(buffer) != gst_buffer_get_keypoints_object_meta(buffer))
    std::abort();
  G_GNUC_END_IGNORE_DEPRECATIONS
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpusift::fuzz::init_gstreamer_quietly(false);
  gpusift::fuzz::InputReader input(data, size);
  GstBuffer* buffer = gst_buffer_new();

  const guint count = input.take<uint8_t>() % 3 + 1;
  GstKeypointsObjectMeta* last = nullptr;
  for (guint i = 0; i < count; i++) {
    const std::string label = input.take_text(input.take<uint8_t>() % 16);
    const guint width = input.take<uint16_t>();
    const guint height = input.take<uint16_t>();
    const guint reference_width = input.take<uint16_t>();
    const guint reference_height = input.take<uint16_t>();
    gdouble homography[9];
    for (gdouble& entry : homography)
      entry = input.take<double>();
    const guint matches = input.take<uint16_t>();
    const guint inliers = input.take<uint16_t>();
    GstKeypointsObjectMeta* meta =
        gst_buffer_add_keypoints_object_meta(buffer, label.c_str(), width, height, reference_width,
                                             reference_height, homography, matches, inliers);
    if (meta) {
      check_made(meta);
      last = meta;
    }
  }

  // The lies, on the last meta made.
  GstKeypointsObjectMeta lied = last ? *last : GstKeypointsObjectMeta{};
  const uint16_t lies = input.take<uint16_t>();
  if (lies & 1)
    lied.label = input.take<guint32>();
  if (lies & 2)
    lied.width = input.take<guint>();
  if (lies & 4)
    lied.height = input.take<guint>();
  if (lies & 8)
    lied.reference_width = input.take<guint>();
  if (lies & 16)
    lied.reference_height = input.take<guint>();
  if (lies & 32) {
    // The index first: in `a[i()] = v()` C++17 reads v() before i().
    const size_t at = input.take<uint8_t>() % 8;
    lied.corners[at] = input.take<double>();
  }
  if (lies & 64) {
    const size_t at = input.take<uint8_t>() % 9;
    lied.homography[at] = input.take<double>();
  }
  if (lies & 128)
    lied.matches = input.take<guint>();
  if (lies & 256)
    lied.inliers = input.take<guint>();
  gint out_width = input.take<gint32>();
  gint out_height = input.take<gint32>();
  if (out_width == 0 && out_height == 0) {
    out_width = 32;
    out_height = 40;
  }
  if (last)
    *last = lied;

  read_metas(buffer);

  // COPY: every meta whose homography still maps the corners to finite points is carried on.
  GstBuffer* copy = gst_buffer_copy(buffer);
  gpointer state = nullptr;
  while (GstMeta* meta =
             gst_buffer_iterate_meta_filtered(copy, &state, GST_KEYPOINTS_OBJECT_META_API_TYPE))
    check_made(reinterpret_cast<GstKeypointsObjectMeta*>(meta));
  read_metas(copy);
  gst_buffer_unref(copy);

  // SCALE, as GstBaseTransform's metadata copy calls it for videoscale, on every meta.
  gpusift::fuzz::ScaleTransform scale(out_width, out_height);
  GstBuffer* scaled = gst_buffer_new();
  state = nullptr;
  while (GstMeta* meta =
             gst_buffer_iterate_meta_filtered(buffer, &state, GST_KEYPOINTS_OBJECT_META_API_TYPE))
    meta->info->transform_func(scaled, meta, buffer, gst_video_meta_transform_scale_get_quark(),
                               scale.get());
  state = nullptr;
  while (GstMeta* meta =
             gst_buffer_iterate_meta_filtered(scaled, &state, GST_KEYPOINTS_OBJECT_META_API_TYPE)) {
    const auto* made = reinterpret_cast<GstKeypointsObjectMeta*>(meta);
    check_made(made);
    if (made->width != static_cast<guint>(out_width) ||
        made->height != static_cast<guint>(out_height))
      std::abort();
  }
  read_metas(scaled);
  gst_buffer_unref(scaled);
  gst_buffer_unref(buffer);
  return 0;
}
