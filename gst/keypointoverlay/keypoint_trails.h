/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Track trails for keypointoverlay: the last positions of every track id, remembered from frame
 * to frame out of GstKeypointsTracksMeta, and a colour per id. */
#pragma once

#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/keypoints/gstkeypointstracksmeta.h>

G_BEGIN_DECLS

typedef struct {
  GHashTable* trails; /* track id -> its trail */
  guint64 frame;      /* frames updated so far */
  guint width;        /* the meta coordinate space the positions are in */
  guint height;
} KeypointTrails;

void keypoint_trails_init(KeypointTrails* trails);
void keypoint_trails_release(KeypointTrails* trails);
/* Forgets every trail. */
void keypoint_trails_clear(KeypointTrails* trails);

/* Appends each keypoint's position to its track's trail, which keeps the last `length` positions,
 * and forgets the trails of tracks not seen for `length` frames. tracks must belong to keypoints
 * (one track per keypoint); a new coordinate space starts all trails afresh. */
void keypoint_trails_update(KeypointTrails* trails, const GstKeypointsMeta* keypoints,
                            const GstKeypointsTracksMeta* tracks, guint length);

/* The trail of a track, oldest first, as x, y pairs in the meta's coordinate space; returns the
 * number of positions (0 for an unknown id, with *xy NULL). */
guint keypoint_trails_get(const KeypointTrails* trails, guint64 track_id, const gfloat** xy);

/* An opaque, saturated colour for a track id (0xffRRGGBB); consecutive ids get distant hues. */
guint32 keypoint_trail_color(guint64 track_id);

G_END_DECLS
