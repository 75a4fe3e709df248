/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An application written against the tracks and object metas' names from before the rename
 * (GstKeypointTracksMeta, gst_buffer_add_keypoint_object_meta, ...) and their old headers, built
 * outside the tree against the installed gstreamer-keypoints-1.0: it must compile (with
 * deprecation warnings), link, and reach the same metas as the GstKeypoints names.
 *   old-names-app
 * Exit 0 when it does. */
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointobjectmeta.h>
#include <gst/keypoints/gstkeypointtracksmeta.h>
#include <stdio.h>

static int check(int ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "old names: %s\n", what);
  }
  return ok;
}

int main(int argc, char** argv) {
  const GstKeypointTrack tracks[2] = {{1, -1, 0}, {2, 0, 5}};
  const gdouble shift[9] = {1.0, 0.0, 10.0, 0.0, 1.0, 20.0, 0.0, 0.0, 1.0};
  GstKeypointMotion motion;
  GstKeypointTracksMeta* tracks_meta;
  GstKeypointObjectMeta* object_meta;
  GstBuffer* buffer;
  int ok = 1;

  gst_init(&argc, &argv);
  gst_keypoint_motion_init(&motion);
  buffer = gst_buffer_new();
  tracks_meta = gst_buffer_add_keypoint_tracks_meta(buffer, 640, 480, tracks, 2, &motion);
  object_meta = gst_buffer_add_keypoint_object_meta(buffer, "box", 640, 480, 100, 50, shift, 9, 8);

  ok &= check(tracks_meta != NULL && object_meta != NULL, "adding failed");
  ok &= check(gst_buffer_get_keypoint_tracks_meta(buffer) == tracks_meta, "tracks by old name");
  ok &= check(gst_buffer_get_keypoints_tracks_meta(buffer) == tracks_meta, "tracks by new name");
  ok &=
      check(gst_buffer_get_meta(buffer, GST_KEYPOINT_TRACKS_META_API_TYPE) == (GstMeta*)tracks_meta,
            "tracks by old API type");
  ok &= check(gst_buffer_get_keypoint_object_meta_by_label(buffer, "box") == object_meta,
              "object by old name");
  ok &= check(gst_buffer_get_keypoints_object_meta(buffer) == object_meta, "object by new name");
  ok &= check(GST_KEYPOINT_OBJECT_META_INFO == GST_KEYPOINTS_OBJECT_META_INFO, "object info");
  ok &= check(g_strcmp0(gst_keypoint_object_meta_get_label(object_meta), "box") == 0, "label");

  gst_buffer_unref(buffer);
  if (ok) {
    printf("old names: the same metas as the GstKeypoints names\n");
  }
  return ok ? 0 : 1;
}
