/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "keypoint_trails.h"

#include <math.h>
#include <string.h>

typedef struct {
  guint64 id; /* the hash table's key points here */
  guint64 last_frame;
  guint n_points;
  guint capacity;
  gfloat* xy;
} Trail;

static void trail_free(gpointer data) {
  Trail* trail = data;
  g_free(trail->xy);
  g_free(trail);
}

void keypoint_trails_init(KeypointTrails* trails) {
  trails->trails = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, trail_free);
  trails->frame = 0;
  trails->width = 0;
  trails->height = 0;
}

void keypoint_trails_release(KeypointTrails* trails) {
  g_clear_pointer(&trails->trails, g_hash_table_unref);
}

void keypoint_trails_clear(KeypointTrails* trails) {
  g_hash_table_remove_all(trails->trails);
  trails->width = 0;
  trails->height = 0;
}

/* Keeps the last `capacity` positions when the length changes. */
static void trail_resize(Trail* trail, guint capacity) {
  gfloat* xy = g_new(gfloat, 2 * (gsize)capacity);
  const guint kept = MIN(trail->n_points, capacity);
  if (kept > 0) { /* a new trail has no points, and no array to copy from */
    memcpy(xy, trail->xy + 2 * (trail->n_points - kept), 2 * kept * sizeof(gfloat));
  }
  g_free(trail->xy);
  trail->xy = xy;
  trail->n_points = kept;
  trail->capacity = capacity;
}

static void trail_append(Trail* trail, gfloat x, gfloat y, guint length) {
  if (trail->capacity != length) {
    trail_resize(trail, length);
  }
  if (trail->n_points == trail->capacity) {
    memmove(trail->xy, trail->xy + 2, 2 * (trail->n_points - 1) * sizeof(gfloat));
    trail->n_points--;
  }
  trail->xy[2 * trail->n_points] = x;
  trail->xy[2 * trail->n_points + 1] = y;
  trail->n_points++;
}

static gboolean trail_is_stale(gpointer key, gpointer value, gpointer data) {
  const Trail* trail = value;
  const guint64* oldest_kept = data;
  (void)key;
  return trail->last_frame < *oldest_kept;
}

void keypoint_trails_update(KeypointTrails* trails, const GstKeypointsMeta* keypoints,
                            const GstKeypointsTracksMeta* tracks, guint length) {
  guint64 oldest_kept;
  guint i;

  g_return_if_fail(keypoints != NULL && tracks != NULL);
  g_return_if_fail(tracks->n_tracks == keypoints->n_keypoints);
  if (length == 0) {
    keypoint_trails_clear(trails);
    return;
  }
  if (keypoints->width != trails->width || keypoints->height != trails->height) {
    keypoint_trails_clear(trails);
    trails->width = keypoints->width;
    trails->height = keypoints->height;
  }
  trails->frame++;
  for (i = 0; i < tracks->n_tracks; i++) {
    guint64 id = tracks->tracks[i].track_id;
    Trail* trail = g_hash_table_lookup(trails->trails, &id);
    if (trail == NULL) {
      trail = g_new0(Trail, 1);
      trail->id = id;
      g_hash_table_insert(trails->trails, &trail->id, trail);
    }
    trail_append(trail, keypoints->keypoints[i].x, keypoints->keypoints[i].y, length);
    trail->last_frame = trails->frame;
  }
  oldest_kept = trails->frame > length ? trails->frame - length + 1 : 0;
  g_hash_table_foreach_remove(trails->trails, trail_is_stale, &oldest_kept);
}

guint keypoint_trails_get(const KeypointTrails* trails, guint64 track_id, const gfloat** xy) {
  const Trail* trail = g_hash_table_lookup(trails->trails, &track_id);
  *xy = trail ? trail->xy : NULL;
  return trail ? trail->n_points : 0;
}

/* splitmix64's finaliser: neighbouring ids land far apart. */
static guint64 mix(guint64 x) {
  x = (x ^ (x >> 30)) * G_GUINT64_CONSTANT(0xbf58476d1ce4e5b9);
  x = (x ^ (x >> 27)) * G_GUINT64_CONSTANT(0x94d049bb133111eb);
  return x ^ (x >> 31);
}

guint32 keypoint_trail_color(guint64 track_id) {
  /* A hue at full saturation and value: never grey, never dark. */
  const gdouble hue = (gdouble)(mix(track_id) % 3600) / 600.0; /* sextant, 0 <= hue < 6 */
  const gdouble rising = hue - floor(hue);
  const guint8 up = (guint8)lround(255.0 * rising);
  const guint8 down = (guint8)(255 - up);
  guint8 r, g, b;
  switch ((int)hue) {
    case 0:
      r = 255, g = up, b = 0;
      break;
    case 1:
      r = down, g = 255, b = 0;
      break;
    case 2:
      r = 0, g = 255, b = up;
      break;
    case 3:
      r = 0, g = down, b = 255;
      break;
    case 4:
      r = up, g = 0, b = 255;
      break;
    default:
      r = 255, g = 0, b = down;
      break;
  }
  return 0xff000000u | ((guint32)r << 16) | ((guint32)g << 8) | b;
}
