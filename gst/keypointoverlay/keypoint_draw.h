/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shape rasterisation for keypointoverlay: shapes are first drawn into a coverage mask at frame
 * resolution, then the mask is blended into each colour component. The mask keeps overlapping
 * shapes from blending twice and gives subsampled chroma the union of its luma pixels. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint8* pixels; /* width * height, 1 where covered */
  gint width;
  gint height;
  /* Inclusive bounds of what may be covered; empty when x1 < x0. */
  gint dirty_x0, dirty_y0, dirty_x1, dirty_y1;
} KeypointDrawMask;

/* One 8-bit colour component of a frame. */
typedef struct {
  guint8* data;      /* first sample */
  gint stride;       /* bytes between rows */
  gint pixel_stride; /* bytes between samples of a row */
  gint width;        /* samples per row */
  gint height;       /* rows */
  guint w_sub;       /* log2 of the horizontal subsampling against the mask */
  guint h_sub;
} KeypointDrawComponent;

void keypoint_draw_mask_init(KeypointDrawMask* mask, gint width, gint height);
void keypoint_draw_mask_release(KeypointDrawMask* mask);
void keypoint_draw_mask_clear(KeypointDrawMask* mask);

/* Covers the pixels whose centres lie within thickness / 2 of the circle. */
void keypoint_draw_ring(KeypointDrawMask* mask, gdouble cx, gdouble cy, gdouble radius,
                        gdouble thickness);
/* Covers the pixels whose centres lie within thickness / 2 of the segment. */
void keypoint_draw_segment(KeypointDrawMask* mask, gdouble x0, gdouble y0, gdouble x1, gdouble y1,
                           gdouble thickness);

/* Covers the segments joining n_points points (x0, y0, x1, y1, ...) in order, and the last back
 * to the first when closed: a track's trail, an object's outline. */
void keypoint_draw_polyline(KeypointDrawMask* mask, const gdouble* xy, guint n_points,
                            gboolean closed, gdouble thickness);

/* Blends values[c] with the given opacity into every sample of components[c] that covers a masked
 * pixel. The components must share their size and subsampling (e.g. R, G, B, A or U, V). */
void keypoint_draw_blend(const KeypointDrawMask* mask, const KeypointDrawComponent* components,
                         const guint8* values, guint n_components, guint8 alpha);

G_END_DECLS
