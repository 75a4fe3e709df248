/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstkeypointoverlay.h"

#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/keypoints/gstkeypointsobjectmeta.h>
#include <gst/keypoints/gstkeypointstracksmeta.h>
#include <math.h>
#include <stdlib.h>

#include "keypoint_draw.h"
#include "keypoint_trails.h"

/**
 * SECTION:element-keypointoverlay
 * @title: keypointoverlay
 *
 * keypointoverlay draws, in place, the features that the gpusift elements upstream attached to
 * each buffer:
 *
 * * every keypoint of the buffer's #GstKeypointsMeta (from gpusiftfilter) as a circle of the
 *   keypoint's size with a radius along its angle, in the colour of #GstKeypointOverlay:color
 *   (with #GstKeypointOverlay:max-keypoints, only the strongest by response);
 * * with a #GstKeypointsTracksMeta (from keypointtracker), every track seen in the frame as a
 *   trail through its last #GstKeypointOverlay:track-length positions, in a colour derived from
 *   its track id;
 * * with #GstKeypointsObjectMeta (from keypointmatcher), the outline of every object found,
 *   through its four corners, twice as thick and over everything else, in the colour of
 *   #GstKeypointOverlay:object-color.
 *
 * Colours are 0xAARRGGBB; an alpha below 0xff blends the drawing with the picture. The element
 * changes only the pixels: it adds no meta, posts no message, and a buffer without any of these
 * metas passes as it came.
 *
 * It comes after gpusiftfilter (and keypointtracker or keypointmatcher, when trails or objects
 * are wanted) and draws on the CPU, on RGBA, BGRA, RGBx, BGRx, I420 or NV12 frames in system
 * memory: after a gpusiftfilter working on CUDA memory, download the frames first (cudadownload).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -e filesrc location=in.mp4 ! decodebin ! videoconvert ! gpusiftfilter ! \
 *     keypointoverlay max-keypoints=500 ! videoconvert ! x264enc ! mp4mux ! \
 *     filesink location=keypoints.mp4
 * ]|
 * Draws the 500 strongest SIFT keypoints of every frame of in.mp4, in green, into keypoints.mp4.
 *
 * |[
 * gst-launch-1.0 videotestsrc pattern=smpte horizontal-speed=4 ! \
 *     video/x-raw,format=NV12,width=640,height=480 ! gpusiftfilter ! keypointtracker ! \
 *     keypointoverlay track-length=30 color=0x80ffff00 ! videoconvert ! autovideosink
 * ]|
 * Shows a panning test pattern with its keypoints in half-transparent yellow and the trail of
 * every track over its last 30 frames.
 *
 * Since: 0.1
 */

GST_DEBUG_CATEGORY_STATIC(gst_keypoint_overlay_debug);
#define GST_CAT_DEFAULT gst_keypoint_overlay_debug

#define DEFAULT_COLOR 0xff00ff00u
#define DEFAULT_THICKNESS 1
#define MAX_THICKNESS 16
#define DEFAULT_MAX_KEYPOINTS 0
#define DEFAULT_DRAW_ORIENTATION TRUE
#define DEFAULT_TRACK_LENGTH 10
#define MAX_TRACK_LENGTH 1000
#define DEFAULT_DRAW_OBJECTS TRUE
#define DEFAULT_OBJECT_COLOR 0xffff0000u

enum {
  PROP_0,
  PROP_COLOR,
  PROP_THICKNESS,
  PROP_MAX_KEYPOINTS,
  PROP_DRAW_ORIENTATION,
  PROP_TRACK_LENGTH,
  PROP_DRAW_OBJECTS,
  PROP_OBJECT_COLOR,
};

typedef struct {
  guint color; /* ARGB */
  gint thickness;
  gint max_keypoints; /* 0: all */
  gboolean draw_orientation;
  gint track_length; /* positions per trail; 0: no trails */
  gboolean draw_objects;
  guint object_color; /* ARGB */
} OverlayStyle;

struct _GstKeypointOverlay {
  GstVideoFilter parent;

  OverlayStyle style;    /* guarded by the object lock */
  KeypointDrawMask mask; /* streaming thread only */
  KeypointTrails trails; /* streaming thread only */
};

#define OVERLAY_CAPS GST_VIDEO_CAPS_MAKE("{ RGBA, BGRA, RGBx, BGRx, I420, NV12 }")

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(OVERLAY_CAPS));
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(OVERLAY_CAPS));

G_DEFINE_TYPE_WITH_CODE(GstKeypointOverlay, gst_keypoint_overlay, GST_TYPE_VIDEO_FILTER,
                        GST_DEBUG_CATEGORY_INIT(gst_keypoint_overlay_debug, "keypointoverlay", 0,
                                                "Keypoint overlay"))

GST_ELEMENT_REGISTER_DEFINE(keypointoverlay, "keypointoverlay", GST_RANK_NONE,
                            GST_TYPE_KEYPOINT_OVERLAY)

static void gst_keypoint_overlay_set_property(GObject* object, guint prop_id, const GValue* value,
                                              GParamSpec* pspec) {
  GstKeypointOverlay* self = GST_KEYPOINT_OVERLAY(object);
  GST_OBJECT_LOCK(self);
  switch (prop_id) {
    case PROP_COLOR:
      self->style.color = g_value_get_uint(value);
      break;
    case PROP_THICKNESS:
      self->style.thickness = g_value_get_int(value);
      break;
    case PROP_MAX_KEYPOINTS:
      self->style.max_keypoints = g_value_get_int(value);
      break;
    case PROP_DRAW_ORIENTATION:
      self->style.draw_orientation = g_value_get_boolean(value);
      break;
    case PROP_TRACK_LENGTH:
      self->style.track_length = g_value_get_int(value);
      break;
    case PROP_DRAW_OBJECTS:
      self->style.draw_objects = g_value_get_boolean(value);
      break;
    case PROP_OBJECT_COLOR:
      self->style.object_color = g_value_get_uint(value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK(self);
}

static void gst_keypoint_overlay_get_property(GObject* object, guint prop_id, GValue* value,
                                              GParamSpec* pspec) {
  GstKeypointOverlay* self = GST_KEYPOINT_OVERLAY(object);
  GST_OBJECT_LOCK(self);
  switch (prop_id) {
    case PROP_COLOR:
      g_value_set_uint(value, self->style.color);
      break;
    case PROP_THICKNESS:
      g_value_set_int(value, self->style.thickness);
      break;
    case PROP_MAX_KEYPOINTS:
      g_value_set_int(value, self->style.max_keypoints);
      break;
    case PROP_DRAW_ORIENTATION:
      g_value_set_boolean(value, self->style.draw_orientation);
      break;
    case PROP_TRACK_LENGTH:
      g_value_set_int(value, self->style.track_length);
      break;
    case PROP_DRAW_OBJECTS:
      g_value_set_boolean(value, self->style.draw_objects);
      break;
    case PROP_OBJECT_COLOR:
      g_value_set_uint(value, self->style.object_color);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK(self);
}

static void gst_keypoint_overlay_finalize(GObject* object) {
  keypoint_draw_mask_release(&GST_KEYPOINT_OVERLAY(object)->mask);
  keypoint_trails_release(&GST_KEYPOINT_OVERLAY(object)->trails);
  G_OBJECT_CLASS(gst_keypoint_overlay_parent_class)->finalize(object);
}

static gboolean gst_keypoint_overlay_stop(GstBaseTransform* trans) {
  keypoint_draw_mask_release(&GST_KEYPOINT_OVERLAY(trans)->mask);
  keypoint_trails_clear(&GST_KEYPOINT_OVERLAY(trans)->trails);
  return TRUE;
}

static gboolean gst_keypoint_overlay_set_info(GstVideoFilter* filter, GstCaps* incaps,
                                              GstVideoInfo* in_info, GstCaps* outcaps,
                                              GstVideoInfo* out_info) {
  GstKeypointOverlay* self = GST_KEYPOINT_OVERLAY(filter);
  (void)incaps;
  (void)outcaps;
  (void)out_info;
  keypoint_draw_mask_release(&self->mask);
  keypoint_draw_mask_init(&self->mask, GST_VIDEO_INFO_WIDTH(in_info),
                          GST_VIDEO_INFO_HEIGHT(in_info));
  return TRUE;
}

typedef struct {
  gfloat response;
  guint index;
} RankedKeypoint;

/* Strongest first; NaN responses last; ties in meta order. */
static int compare_stronger_first(const void* a, const void* b) {
  const RankedKeypoint* ka = a;
  const RankedKeypoint* kb = b;
  const gboolean a_nan = isnan(ka->response);
  const gboolean b_nan = isnan(kb->response);
  if (a_nan != b_nan) {
    return a_nan ? 1 : -1;
  }
  if (!a_nan && ka->response != kb->response) {
    return ka->response > kb->response ? -1 : 1;
  }
  return ka->index < kb->index ? -1 : (ka->index > kb->index ? 1 : 0);
}

static void draw_keypoint(KeypointDrawMask* mask, const GstKeypoint* kp, gdouble sx, gdouble sy,
                          const OverlayStyle* style) {
  const gdouble cx = kp->x * sx;
  const gdouble cy = kp->y * sy;
  const gdouble meta_radius = kp->size / 2.0;

  if (!(meta_radius >= 0.0)) {
    return;
  }
  keypoint_draw_ring(mask, cx, cy, meta_radius * (sx + sy) / 2.0, style->thickness);
  /* cv::drawKeypoints' DRAW_RICH_KEYPOINTS: -1 means no orientation; y points down. */
  if (style->draw_orientation && kp->angle != -1.0f) {
    const gdouble radians = kp->angle * G_PI / 180.0;
    keypoint_draw_segment(mask, cx, cy, cx + cos(radians) * meta_radius * sx,
                          cy + sin(radians) * meta_radius * sy, style->thickness);
  }
}

static void draw_keypoints(KeypointDrawMask* mask, const GstKeypointsMeta* meta,
                           const OverlayStyle* style) {
  const gdouble sx = (gdouble)mask->width / meta->width;
  const gdouble sy = (gdouble)mask->height / meta->height;
  RankedKeypoint* ranked;
  guint n, i;

  if (style->max_keypoints <= 0 || (guint)style->max_keypoints >= meta->n_keypoints) {
    for (i = 0; i < meta->n_keypoints; i++) {
      draw_keypoint(mask, &meta->keypoints[i], sx, sy, style);
    }
    return;
  }
  n = (guint)style->max_keypoints;
  ranked = g_new(RankedKeypoint, meta->n_keypoints);
  for (i = 0; i < meta->n_keypoints; i++) {
    ranked[i].response = meta->keypoints[i].response;
    ranked[i].index = i;
  }
  qsort(ranked, meta->n_keypoints, sizeof(RankedKeypoint), compare_stronger_first);
  for (i = 0; i < n; i++) {
    draw_keypoint(mask, &meta->keypoints[ranked[i].index], sx, sy, style);
  }
  g_free(ranked);
}

/* The colour's value for each component index (R, G, B or Y, U, V; then A). Alpha is blended
 * towards opaque, so drawing never makes a pixel more transparent. */
static void component_values(guint argb, gboolean yuv, guint8 values[GST_VIDEO_MAX_COMPONENTS]) {
  const gdouble r = (argb >> 16) & 0xff;
  const gdouble g = (argb >> 8) & 0xff;
  const gdouble b = argb & 0xff;
  if (yuv) {
    /* BT.601, limited range. */
    values[GST_VIDEO_COMP_Y] = (guint8)lround(16.0 + (65.481 * r + 128.553 * g + 24.966 * b) / 255);
    values[GST_VIDEO_COMP_U] = (guint8)lround(128.0 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255);
    values[GST_VIDEO_COMP_V] = (guint8)lround(128.0 + (112.0 * r - 93.786 * g - 18.214 * b) / 255);
  } else {
    values[GST_VIDEO_COMP_R] = (guint8)r;
    values[GST_VIDEO_COMP_G] = (guint8)g;
    values[GST_VIDEO_COMP_B] = (guint8)b;
  }
  values[GST_VIDEO_COMP_A] = 255;
}

static KeypointDrawComponent frame_component(GstVideoFrame* frame, guint c) {
  const KeypointDrawComponent component = {
      .data = GST_VIDEO_FRAME_COMP_DATA(frame, c),
      .stride = GST_VIDEO_FRAME_COMP_STRIDE(frame, c),
      .pixel_stride = GST_VIDEO_FRAME_COMP_PSTRIDE(frame, c),
      .width = GST_VIDEO_FRAME_COMP_WIDTH(frame, c),
      .height = GST_VIDEO_FRAME_COMP_HEIGHT(frame, c),
      .w_sub = GST_VIDEO_FORMAT_INFO_W_SUB(frame->info.finfo, c),
      .h_sub = GST_VIDEO_FORMAT_INFO_H_SUB(frame->info.finfo, c),
  };
  return component;
}

/* One pass over the mask per subsampling: R, G, B, A together; Y, then U and V together. */
static void blend_mask(GstVideoFrame* frame, const KeypointDrawMask* mask, guint argb) {
  const guint n = GST_VIDEO_FRAME_N_COMPONENTS(frame);
  guint8 colour[GST_VIDEO_MAX_COMPONENTS] = {0};
  gboolean done[GST_VIDEO_MAX_COMPONENTS] = {FALSE};
  guint c;

  component_values(argb, GST_VIDEO_FORMAT_INFO_IS_YUV(frame->info.finfo), colour);
  for (c = 0; c < n; c++) {
    const KeypointDrawComponent lead = frame_component(frame, c);
    KeypointDrawComponent group[GST_VIDEO_MAX_COMPONENTS];
    guint8 values[GST_VIDEO_MAX_COMPONENTS];
    guint n_group = 0;
    guint other;
    if (done[c]) {
      continue;
    }
    for (other = c; other < n; other++) {
      const KeypointDrawComponent component = frame_component(frame, other);
      if (!done[other] && component.w_sub == lead.w_sub && component.h_sub == lead.h_sub) {
        group[n_group] = component;
        values[n_group] = colour[other];
        n_group++;
        done[other] = TRUE;
      }
    }
    keypoint_draw_blend(mask, group, values, n_group, (guint8)(argb >> 24));
  }
}

/* Each track seen in this frame as a polyline through its last positions, in its own colour: one
 * mask pass per track, since every track has its colour. Other layers (an object's outline) draw
 * the same way: shapes into the mask, then blend_mask with their colour. */
static void draw_trails(GstKeypointOverlay* self, GstVideoFrame* frame,
                        const GstKeypointsMeta* meta, const GstKeypointsTracksMeta* tracks,
                        const OverlayStyle* style) {
  const gdouble sx = (gdouble)self->mask.width / meta->width;
  const gdouble sy = (gdouble)self->mask.height / meta->height;
  gdouble* points = g_new(gdouble, 2 * (gsize)style->track_length);
  guint i, k;

  for (i = 0; i < tracks->n_tracks; i++) {
    const gfloat* xy;
    const guint n = keypoint_trails_get(&self->trails, tracks->tracks[i].track_id, &xy);
    if (n < 2) {
      continue;
    }
    for (k = 0; k < n; k++) {
      points[2 * k] = xy[2 * k] * sx;
      points[2 * k + 1] = xy[2 * k + 1] * sy;
    }
    keypoint_draw_polyline(&self->mask, points, n, FALSE, style->thickness);
    blend_mask(frame, &self->mask, keypoint_trail_color(tracks->tracks[i].track_id));
    keypoint_draw_mask_clear(&self->mask);
  }
  g_free(points);
}

/* The outline of every object a keypointmatcher found (GstKeypointsObjectMeta), closed through
 * its four corners, twice as thick as the keypoints so that it stands out among them. */
static void draw_objects(GstKeypointOverlay* self, GstVideoFrame* frame,
                         const OverlayStyle* style) {
  gpointer state = NULL;
  GstMeta* meta;
  gboolean drawn = FALSE;

  while ((meta = gst_buffer_iterate_meta_filtered(frame->buffer, &state,
                                                  GST_KEYPOINTS_OBJECT_META_API_TYPE)) != NULL) {
    const GstKeypointsObjectMeta* object = (const GstKeypointsObjectMeta*)meta;
    gdouble points[8];
    guint i;
    if (object->width == 0 || object->height == 0) {
      continue;
    }
    for (i = 0; i < 4; i++) {
      points[2 * i] = object->corners[2 * i] * self->mask.width / object->width;
      points[2 * i + 1] = object->corners[2 * i + 1] * self->mask.height / object->height;
    }
    keypoint_draw_polyline(&self->mask, points, 4, TRUE, 2.0 * style->thickness);
    drawn = TRUE;
  }
  if (drawn) {
    blend_mask(frame, &self->mask, style->object_color);
    keypoint_draw_mask_clear(&self->mask);
  }
}

/* The keypoints, then the trails of their tracks when every keypoint has one. */
static void draw_features(GstKeypointOverlay* self, GstVideoFrame* frame,
                          const GstKeypointsMeta* meta, const OverlayStyle* style) {
  const GstKeypointsTracksMeta* tracks;

  GST_LOG_OBJECT(self, "drawing %u keypoints", meta->n_keypoints);
  draw_keypoints(&self->mask, meta, style);
  blend_mask(frame, &self->mask, style->color);
  keypoint_draw_mask_clear(&self->mask);

  tracks = gst_buffer_get_keypoints_tracks_meta(frame->buffer);
  /* Tracks count only with one per keypoint (a tracker upstream of a filter that changed the
   * keypoints leaves a stale tracks meta). */
  if (tracks != NULL && tracks->n_tracks == meta->n_keypoints) {
    keypoint_trails_update(&self->trails, meta, tracks, (guint)style->track_length);
    if (style->track_length > 0) {
      draw_trails(self, frame, meta, tracks, style);
    }
  }
}

/* FALSE, with an element error naming the cause, when the buffer's keypoints or tracks meta has
 * fields that disagree with its arrays: drawing from them would read past the arrays. */
static gboolean metas_are_consistent(GstKeypointOverlay* self, GstBuffer* buffer) {
  const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(buffer);
  const GstKeypointsTracksMeta* tracks = gst_buffer_get_keypoints_tracks_meta(buffer);
  GError* error = NULL;

  if ((meta == NULL || gst_keypoints_meta_validate(meta, &error)) &&
      (tracks == NULL || gst_keypoints_tracks_meta_validate(tracks, &error))) {
    return TRUE;
  }
  GST_ELEMENT_ERROR(self, STREAM, FORMAT, ("Inconsistent keypoints metadata on a buffer."),
                    ("%s (the meta's fields were changed after it was added)", error->message));
  g_error_free(error);
  return FALSE;
}

static GstFlowReturn gst_keypoint_overlay_transform_frame_ip(GstVideoFilter* filter,
                                                             GstVideoFrame* frame) {
  GstKeypointOverlay* self = GST_KEYPOINT_OVERLAY(filter);
  const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(frame->buffer);
  OverlayStyle style;

  if (!metas_are_consistent(self, frame->buffer)) {
    return GST_FLOW_ERROR;
  }
  GST_OBJECT_LOCK(self);
  style = self->style;
  GST_OBJECT_UNLOCK(self);

  if (self->mask.width != GST_VIDEO_FRAME_WIDTH(frame) ||
      self->mask.height != GST_VIDEO_FRAME_HEIGHT(frame)) {
    keypoint_draw_mask_release(&self->mask);
    keypoint_draw_mask_init(&self->mask, GST_VIDEO_FRAME_WIDTH(frame),
                            GST_VIDEO_FRAME_HEIGHT(frame));
  }
  if (meta != NULL && meta->n_keypoints > 0) {
    draw_features(self, frame, meta, &style);
  }
  /* Last, over the keypoints: the object is what the frame is about. */
  if (style.draw_objects) {
    draw_objects(self, frame, &style);
  }
  return GST_FLOW_OK;
}

static void gst_keypoint_overlay_class_init(GstKeypointOverlayClass* klass) {
  GObjectClass* gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  GstVideoFilterClass* filter_class = GST_VIDEO_FILTER_CLASS(klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING;

  gobject_class->set_property = gst_keypoint_overlay_set_property;
  gobject_class->get_property = gst_keypoint_overlay_get_property;
  gobject_class->finalize = gst_keypoint_overlay_finalize;

  g_object_class_install_property(
      gobject_class, PROP_COLOR,
      g_param_spec_uint("color", "Color",
                        "Colour of the keypoint circles and orientation lines, as 0xAARRGGBB "
                        "(default 0xff00ff00); an alpha below 0xff blends",
                        0, G_MAXUINT32, DEFAULT_COLOR, flags));
  g_object_class_install_property(
      gobject_class, PROP_THICKNESS,
      g_param_spec_int("thickness", "Thickness", "Line thickness in pixels", 1, MAX_THICKNESS,
                       DEFAULT_THICKNESS, flags));
  g_object_class_install_property(
      gobject_class, PROP_MAX_KEYPOINTS,
      g_param_spec_int("max-keypoints", "Max keypoints",
                       "Draw at most this many keypoints, highest response first (0 = all)", 0,
                       G_MAXINT, DEFAULT_MAX_KEYPOINTS, flags));
  g_object_class_install_property(gobject_class, PROP_DRAW_ORIENTATION,
                                  g_param_spec_boolean("draw-orientation", "Draw orientation",
                                                       "Draw a radius along each keypoint's angle",
                                                       DEFAULT_DRAW_ORIENTATION, flags));
  g_object_class_install_property(
      gobject_class, PROP_TRACK_LENGTH,
      g_param_spec_int("track-length", "Track length",
                       "Draw each track of GstKeypointsTracksMeta (keypointtracker) through its "
                       "last N positions, coloured by track id (0 = no tracks)",
                       0, MAX_TRACK_LENGTH, DEFAULT_TRACK_LENGTH, flags));
  g_object_class_install_property(
      gobject_class, PROP_DRAW_OBJECTS,
      g_param_spec_boolean("draw-objects", "Draw objects",
                           "Draw the outline of every object of GstKeypointsObjectMeta "
                           "(keypointmatcher), twice the thickness",
                           DEFAULT_DRAW_OBJECTS, flags));
  g_object_class_install_property(
      gobject_class, PROP_OBJECT_COLOR,
      g_param_spec_uint("object-color", "Object color",
                        "Colour of the outlines of the objects of GstKeypointsObjectMeta, as "
                        "0xAARRGGBB (default 0xffff0000); an alpha below 0xff blends",
                        0, G_MAXUINT32, DEFAULT_OBJECT_COLOR, flags));

  gst_element_class_set_static_metadata(
      element_class, "Keypoint overlay", "Filter/Effect/Video",
      "Draws onto the video, in place, the keypoints of GstKeypointsMeta as circles with their "
      "orientation, the tracks of GstKeypointsTracksMeta as trails coloured by track id, and the "
      "outlines of the objects of GstKeypointsObjectMeta; adds nothing to the buffer but the "
      "drawing (no meta)",
      "gpusift");
  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);

  trans_class->stop = GST_DEBUG_FUNCPTR(gst_keypoint_overlay_stop);
  filter_class->set_info = GST_DEBUG_FUNCPTR(gst_keypoint_overlay_set_info);
  filter_class->transform_frame_ip = GST_DEBUG_FUNCPTR(gst_keypoint_overlay_transform_frame_ip);
}

static void gst_keypoint_overlay_init(GstKeypointOverlay* self) {
  self->style.color = DEFAULT_COLOR;
  self->style.thickness = DEFAULT_THICKNESS;
  self->style.max_keypoints = DEFAULT_MAX_KEYPOINTS;
  self->style.draw_orientation = DEFAULT_DRAW_ORIENTATION;
  self->style.track_length = DEFAULT_TRACK_LENGTH;
  self->style.draw_objects = DEFAULT_DRAW_OBJECTS;
  self->style.object_color = DEFAULT_OBJECT_COLOR;
  keypoint_draw_mask_init(&self->mask, 0, 0);
  keypoint_trails_init(&self->trails);
}
