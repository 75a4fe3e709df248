/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "keypoint_draw.h"

#include <math.h>
#include <string.h>

void keypoint_draw_mask_init(KeypointDrawMask* mask, gint width, gint height) {
  mask->width = MAX(width, 0);
  mask->height = MAX(height, 0);
  mask->pixels = g_malloc0((gsize)mask->width * (gsize)mask->height);
  mask->dirty_x0 = mask->dirty_y0 = 0;
  mask->dirty_x1 = mask->dirty_y1 = -1;
}

void keypoint_draw_mask_release(KeypointDrawMask* mask) {
  g_clear_pointer(&mask->pixels, g_free);
  mask->width = mask->height = 0;
  mask->dirty_x0 = mask->dirty_y0 = 0;
  mask->dirty_x1 = mask->dirty_y1 = -1;
}

void keypoint_draw_mask_clear(KeypointDrawMask* mask) {
  gint y;
  for (y = mask->dirty_y0; y <= mask->dirty_y1 && mask->dirty_x0 <= mask->dirty_x1; y++) {
    memset(mask->pixels + (gsize)y * (gsize)mask->width + (gsize)mask->dirty_x0, 0,
           (gsize)(mask->dirty_x1 - mask->dirty_x0 + 1));
  }
  mask->dirty_x0 = mask->dirty_y0 = 0;
  mask->dirty_x1 = mask->dirty_y1 = -1;
}

typedef struct {
  gint x0, y0, x1, y1; /* inclusive */
} PixelBox;

/* The pixels of the mask within [min_x, max_x] x [min_y, max_y]; FALSE when none. Clamps in
 * floating point first: huge coordinates must not overflow the conversion to int. */
static gboolean clip_box(const KeypointDrawMask* mask, gdouble min_x, gdouble min_y, gdouble max_x,
                         gdouble max_y, PixelBox* box) {
  min_x = ceil(min_x);
  min_y = ceil(min_y);
  max_x = floor(max_x);
  max_y = floor(max_y);
  if (!(min_x <= max_x && min_y <= max_y) || max_x < 0 || max_y < 0 || min_x > mask->width - 1 ||
      min_y > mask->height - 1) {
    return FALSE;
  }
  box->x0 = (gint)MAX(min_x, 0.0);
  box->y0 = (gint)MAX(min_y, 0.0);
  box->x1 = (gint)MIN(max_x, (gdouble)(mask->width - 1));
  box->y1 = (gint)MIN(max_y, (gdouble)(mask->height - 1));
  return TRUE;
}

static void mark_dirty(KeypointDrawMask* mask, const PixelBox* box) {
  if (mask->dirty_x1 < mask->dirty_x0) {
    mask->dirty_x0 = box->x0;
    mask->dirty_y0 = box->y0;
    mask->dirty_x1 = box->x1;
    mask->dirty_y1 = box->y1;
    return;
  }
  mask->dirty_x0 = MIN(mask->dirty_x0, box->x0);
  mask->dirty_y0 = MIN(mask->dirty_y0, box->y0);
  mask->dirty_x1 = MAX(mask->dirty_x1, box->x1);
  mask->dirty_y1 = MAX(mask->dirty_y1, box->y1);
}

/* Covers the pixels of row y from lo to hi (pixel centres, inclusive), clipped to the mask. */
static void fill_span(KeypointDrawMask* mask, gint y, gdouble lo, gdouble hi) {
  lo = MAX(ceil(lo), 0.0);
  hi = MIN(floor(hi), (gdouble)(mask->width - 1));
  if (lo <= hi) {
    memset(mask->pixels + (gsize)y * (gsize)mask->width + (gsize)lo, 1, (gsize)(hi - lo) + 1);
  }
}

void keypoint_draw_ring(KeypointDrawMask* mask, gdouble cx, gdouble cy, gdouble radius,
                        gdouble thickness) {
  const gdouble half = thickness / 2.0;
  const gdouble outer = radius + half;
  const gdouble inner = radius - half;
  const gdouble outer2 = outer * outer;
  const gdouble inner2 = inner > 0.0 ? inner * inner : 0.0;
  PixelBox box;
  gint y;

  if (!isfinite(cx) || !isfinite(cy) || !isfinite(outer) || radius < 0.0 || half <= 0.0 ||
      !clip_box(mask, cx - outer, cy - outer, cx + outer, cy + outer, &box)) {
    return;
  }
  mark_dirty(mask, &box);
  for (y = box.y0; y <= box.y1; y++) {
    const gdouble dy2 = (y - cy) * (y - cy);
    gdouble reach, gap;
    if (dy2 > outer2) {
      continue;
    }
    reach = sqrt(outer2 - dy2);
    if (dy2 >= inner2) {
      fill_span(mask, y, cx - reach, cx + reach);
      continue;
    }
    gap = sqrt(inner2 - dy2);
    fill_span(mask, y, cx - reach, cx - gap);
    fill_span(mask, y, cx + gap, cx + reach);
  }
}

typedef struct {
  gdouble lo, hi; /* empty when lo > hi */
} Interval;

static const Interval empty_interval = {1.0, 0.0};

/* The x with lo <= slope * x + offset <= hi. */
static Interval solve_linear(gdouble slope, gdouble offset, gdouble lo, gdouble hi) {
  Interval result;
  if (slope == 0.0) {
    return offset >= lo && offset <= hi ? (Interval){-INFINITY, INFINITY} : empty_interval;
  }
  result.lo = MIN((lo - offset) / slope, (hi - offset) / slope);
  result.hi = MAX((lo - offset) / slope, (hi - offset) / slope);
  return result;
}

static Interval intersect(Interval a, Interval b) {
  const Interval result = {MAX(a.lo, b.lo), MIN(a.hi, b.hi)};
  return result;
}

/* The smallest interval holding both; the pieces of a convex shape's row are contiguous. */
static Interval hull(Interval a, Interval b) {
  if (a.lo > a.hi) {
    return b;
  }
  if (b.lo > b.hi) {
    return a;
  }
  return (Interval){MIN(a.lo, b.lo), MAX(a.hi, b.hi)};
}

/* Row dy away from the centre of a disc of the given squared radius, centred at x = cx. */
static Interval disc_row(gdouble cx, gdouble dy, gdouble radius2) {
  const gdouble rest = radius2 - dy * dy;
  return rest < 0.0 ? empty_interval : (Interval){cx - sqrt(rest), cx + sqrt(rest)};
}

void keypoint_draw_segment(KeypointDrawMask* mask, gdouble x0, gdouble y0, gdouble x1, gdouble y1,
                           gdouble thickness) {
  const gdouble half = thickness / 2.0;
  const gdouble half2 = half * half;
  const gdouble length = sqrt((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0));
  PixelBox box;
  gint y;

  if (!isfinite(length) || !isfinite(half) || half <= 0.0 ||
      !clip_box(mask, MIN(x0, x1) - half, MIN(y0, y1) - half, MAX(x0, x1) + half,
                MAX(y0, y1) + half, &box)) {
    return;
  }
  mark_dirty(mask, &box);
  /* The capsule: the two end discs and the band between them, where the position along the
   * segment lies in [0, length] and the distance across it in [-half, half]. */
  for (y = box.y0; y <= box.y1; y++) {
    Interval row = hull(disc_row(x0, y - y0, half2), disc_row(x1, y - y1, half2));
    if (length > 0.0) {
      const gdouble ux = (x1 - x0) / length;
      const gdouble uy = (y1 - y0) / length;
      const gdouble ry = y - y0;
      const Interval along = solve_linear(ux, ry * uy - x0 * ux, 0.0, length);
      const Interval across = solve_linear(uy, -ry * ux - x0 * uy, -half, half);
      row = hull(row, intersect(along, across));
    }
    if (row.lo <= row.hi) {
      fill_span(mask, y, row.lo, row.hi);
    }
  }
}

void keypoint_draw_polyline(KeypointDrawMask* mask, const gdouble* xy, guint n_points,
                            gboolean closed, gdouble thickness) {
  guint i;
  for (i = 0; i + 1 < n_points; i++) {
    keypoint_draw_segment(mask, xy[2 * i], xy[2 * i + 1], xy[2 * i + 2], xy[2 * i + 3], thickness);
  }
  if (closed && n_points > 2) {
    keypoint_draw_segment(mask, xy[2 * (n_points - 1)], xy[2 * (n_points - 1) + 1], xy[0], xy[1],
                          thickness);
  }
}

void keypoint_draw_blend(const KeypointDrawMask* mask, const KeypointDrawComponent* components,
                         const guint8* values, guint n_components, guint8 alpha) {
  const KeypointDrawComponent* first = &components[0];
  const gint block_w = 1 << first->w_sub;
  const gint block_h = 1 << first->h_sub;
  gint x0, n, sy, sy1;
  guint8* covered;

  if (n_components == 0 || mask->dirty_x1 < mask->dirty_x0 || alpha == 0) {
    return;
  }
  /* Block-aligned, so that skipping 8 pixels keeps whole blocks together. */
  x0 = (mask->dirty_x0 >> first->w_sub) << first->w_sub;
  n = mask->dirty_x1 - x0 + 1;
  covered = g_malloc((gsize)n);
  sy1 = MIN(mask->dirty_y1 >> first->h_sub, first->height - 1);
  for (sy = mask->dirty_y0 >> first->h_sub; sy <= sy1; sy++) {
    const gint y0 = sy << first->h_sub;
    const gint y1 = MIN(y0 + block_h, mask->height) - 1;
    gint i, y;
    /* The mask rows behind this sample row, merged. */
    memcpy(covered, mask->pixels + (gsize)y0 * (gsize)mask->width + (gsize)x0, (gsize)n);
    for (y = y0 + 1; y <= y1; y++) {
      const guint8* row = mask->pixels + (gsize)y * (gsize)mask->width + (gsize)x0;
      for (i = 0; i < n; i++) {
        covered[i] |= row[i];
      }
    }
    for (i = 0; i < n;) {
      const gint sx = (x0 + i) >> first->w_sub;
      guint8 any = 0;
      gint k;
      guint c;
      if (i + 8 <= n) {
        guint64 chunk;
        memcpy(&chunk, covered + i, sizeof chunk);
        if (chunk == 0) {
          i += 8;
          continue;
        }
      }
      for (k = i; k < MIN(i + block_w, n); k++) {
        any |= covered[k];
      }
      i += block_w;
      if (!any || sx >= first->width) {
        continue;
      }
      for (c = 0; c < n_components; c++) {
        guint8* sample = components[c].data + (gssize)sy * components[c].stride +
                         (gssize)sx * components[c].pixel_stride;
        *sample = alpha == 255
                      ? values[c]
                      : (guint8)((values[c] * alpha + *sample * (255 - alpha) + 127) / 255);
      }
    }
  }
  g_free(covered);
}
