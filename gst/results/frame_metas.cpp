// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frame_metas.h"

namespace gpusift::results {

bool read_frame_metas(GstBuffer* buffer, FrameMetas* metas, GError** error) {
  *metas = FrameMetas();
  const GstKeypointsMeta* keypoints = gst_buffer_get_keypoints_meta(buffer);
  if (keypoints != nullptr && !gst_keypoints_meta_validate(keypoints, error))
    return false;
  const GstKeypointsTracksMeta* tracks = gst_buffer_get_keypoints_tracks_meta(buffer);
  if (tracks != nullptr && !gst_keypoints_tracks_meta_validate(tracks, error))
    return false;
  metas->keypoints = keypoints;
  metas->tracks = tracks;
  // The object meta has no arrays behind its fields, so nothing to validate: its numbers are
  // written as they are (non-finite ones as null).
  gpointer state = nullptr;
  while (GstMeta* meta =
             gst_buffer_iterate_meta_filtered(buffer, &state, GST_KEYPOINTS_OBJECT_META_API_TYPE))
    metas->objects.push_back(reinterpret_cast<const GstKeypointsObjectMeta*>(meta));
  return true;
}

}  // namespace gpusift::results
