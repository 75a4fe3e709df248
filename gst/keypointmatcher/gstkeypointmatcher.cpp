// SPDX-License-Identifier: LGPL-2.1-or-later
/* keypointmatcher: finds a known planar object (the reference) in every frame. Each frame's
 * GstKeypointsMeta descriptors are matched to the reference's, a RANSAC homography maps the
 * reference onto the frame, and a frame where enough matches agree gets a
 * GstVideoRegionOfInterestMeta and a GstKeypointsObjectMeta. Pixels are never touched or mapped;
 * the buffer is only made metadata-writable. */
#include "gstkeypointmatcher.h"

#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/keypoints/gstkeypointsobjectmeta.h>
#include <gst/video/video.h>

#include <array>
#include <cstddef>
#include <memory>
#include <string>

#include "base/element_cuda_objects.h"
#include "base/feature_settings_query.h"
#include "base/keypoint_layout.h"
#include "gpusift/error.h"
#include "gpusift/keypoint.h"
#include "gpusift/matcher.h"
#include "gpusift/object_finding.h"
#include "gpusiftfilter/filter_settings.h"
#include "keypointmatcher/analytics_results.h"
#include "matcher_settings.h"
#include "object_reference.h"

/**
 * SECTION:element-keypointmatcher
 * @title: keypointmatcher
 *
 * keypointmatcher finds a known planar object (a poster, a book cover, the face of a box) in
 * every frame. The object is #GstKeypointMatcher:reference: an image file (any format GStreamer
 * decodes), whose features are computed on the first frame the way the stream's are (the element
 * asks gpusiftfilter upstream for its method and parameters), or a features file (.gpsf) written
 * by keypointfilesink or gpusift-extract, whose first record is used as it is. For each frame the
 * reference's descriptors are matched to those of the frame's #GstKeypointsMeta (Lowe's ratio
 * test) and a RANSAC homography maps the reference onto the frame.
 *
 * When at least #GstKeypointMatcher:min-inliers matches agree with it and the outline is
 * plausible, the object is found and the buffer gets:
 *
 * * a #GstVideoRegionOfInterestMeta whose type is #GstKeypointMatcher:label, covering the
 *   outline's bounding box clipped to the frame, with a "keypointmatcher" parameter holding the
 *   inliers and matches;
 * * a #GstKeypointsObjectMeta with the label, the homography from reference pixels to frame
 *   coordinates, the reference's four corners in the frame, and the counts of matches and
 *   inliers;
 * * in builds against GStreamer 1.24 and newer with its analytics library, and while
 *   #GstKeypointMatcher:analytics is set (the default), GStreamer analytics results in the
 *   buffer's #GstAnalyticsRelationMeta, which analytics elements such as
 *   objectdetectionoverlay read: an object-detection result (the same box, the label as its
 *   type, inliers / matches as its location confidence), a tracking result whose id stays the
 *   same while the object is found frame after frame (a frame without it ends the track; the
 *   next detection starts a new one), and a #GstKeypointsSupportMtd holding the indices
 *   (ascending, each once) of the frame's keypoints whose matches agree with the homography. The
 *   tracking and support results are related to the detection both ways
 *   (%GST_ANALYTICS_REL_TYPE_RELATE_TO).
 *
 * A frame where the object is not found gets none of them. With #GstKeypointMatcher:post-messages
 * set, the element also posts a "keypointmatcher" element message for every frame, with timestamp,
 * running-time, label, found, matches, inliers, keypoints, reference-keypoints and
 * processing-time-us, plus corners and homography (arrays of 8 and 9 doubles) when the object is
 * found, or a reason when it is not.
 *
 * It needs gpusiftfilter upstream, with descriptors (descriptor=float, uint8 or rootsift):
 * buffers without a #GstKeypointsMeta, or with keypoints but no descriptors, pass unsearched with
 * one warning per stream. Pixels are neither read nor changed, so any raw video in any memory
 * goes through (video/x-raw(ANY)). A missing or unreadable reference fails the state change with
 * a RESOURCE error, and a features file made with another method or descriptor than the stream's
 * is a STREAM FORMAT error. Several keypointmatchers in a row find several objects, told apart by
 * their labels; keypointoverlay draws their outlines.
 *
 * #GstKeypointMatcher:backend says where matching, RANSAC and the reference's features run: cuda,
 * cpu, or auto, which takes the GPU when one is usable. On the GPU they run in the CUDA context
 * shared with gpusiftfilter; the CPU backend finds the same objects.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -e -m filesrc location=video.mp4 ! decodebin ! videoconvert ! gpusiftfilter ! \
 *     keypointmatcher reference=poster.png label=poster post-messages=true ! \
 *     keypointoverlay max-keypoints=300 ! videoconvert ! x264enc ! mp4mux ! \
 *     filesink location=found.mp4
 * ]|
 * Finds the poster of poster.png in every frame of video.mp4, prints a "keypointmatcher" message
 * per frame (found, inliers, the corners), and draws the poster's outline in red over the 300
 * strongest keypoints into found.mp4.
 *
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! video/x-raw,format=NV12 ! gpusiftfilter ! \
 *     keypointmatcher reference=poster.gpsf ! keypointoverlay ! videoconvert ! autovideosink
 * ]|
 * Finds the object whose features keypointfilesink wrote into poster.gpsf in a camera's picture,
 * shown on screen with its outline.
 *
 * Since: 0.1
 */

GST_DEBUG_CATEGORY_STATIC(gst_keypoint_matcher_debug);
#define GST_CAT_DEFAULT gst_keypoint_matcher_debug

using gpusift::Backend;
using gpusift::DescriptorStorage;
using gpusift::Method;
using gpusift::gst::keypoint_base_post_error;
using gpusift::gst::MatcherSettings;
using gpusift::gst::ObjectReference;
using gpusift::gst::ReferenceFeatures;

static_assert(static_cast<int>(DescriptorStorage::kFloat32) == GST_KEYPOINTS_DESCRIPTOR_FLOAT32,
              "");
static_assert(static_cast<int>(DescriptorStorage::kUint8) == GST_KEYPOINTS_DESCRIPTOR_UINT8, "");

namespace {

// A reference image that decodes in more time than this is refused rather than stalling the
// state change.
constexpr int kReferenceDecodeTimeoutSeconds = 10;
constexpr int kHomographySample = 4;

// What the streaming thread owns between start and stop.
struct Runtime {
  MatcherSettings settings;  // as at start
  std::unique_ptr<gpusift::Matcher> matcher;
  std::unique_ptr<gpusift::objects::ObjectFinder> finder;
  ObjectReference reference;
  gpusift::objects::Detection detection;
  gpusift::gst::ObjectTrack track;  // the analytics results' tracking id
  GstVideoInfo info;
  bool few_reference_keypoints_warned = false;
};

// keypointmatcher's own work behind the base class: its settings and what it does with a frame.
class MatcherWork final : public gpusift::gst::KeypointElementWork {
 public:
  using KeypointElementWork::KeypointElementWork;
  void set_property(guint id, const GValue* value) override {
    gpusift::gst::set_matcher_property(&settings, id, value);
  }
  void get_property(guint id, GValue* value) const override {
    gpusift::gst::get_matcher_property(settings, id, value);
  }
  bool open() override;
  void close() override;
  GstKeypointFrameStart begin(GstBuffer* buffer) override;

  MatcherSettings settings;  // object lock
  Runtime runtime;
};

}  // namespace

struct _GstKeypointMatcher {
  GstKeypointBaseTransform parent;

  // The work's, for the functions below.
  MatcherSettings* settings;  // object lock
  Runtime* runtime;
};

G_DEFINE_TYPE(GstKeypointMatcher, gst_keypoint_matcher, GST_TYPE_KEYPOINT_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE(keypointmatcher, "keypointmatcher", GST_RANK_NONE,
                            GST_TYPE_KEYPOINT_MATCHER);

namespace {

GstKeypointBaseTransform* base_of(GstKeypointMatcher* self) {
  return GST_KEYPOINT_BASE_TRANSFORM(self);
}

Method method_of(const GstKeypointsMeta* meta) {
  return meta->method == GST_KEYPOINTS_METHOD_SURF ? Method::kSurf : Method::kSift;
}

std::string describe_meta(const GstKeypointsMeta* meta) {
  return gpusift::gst::describe_layout(method_of(meta),
                                       static_cast<DescriptorStorage>(meta->descriptor_type),
                                       static_cast<int>(meta->descriptor_size));
}

std::string describe_reference(const ReferenceFeatures& f) {
  return gpusift::gst::describe_layout(f.method, f.storage, f.descriptor_size);
}

// Descriptors can only be compared with descriptors of the same method, storage and length.
bool same_layout(const ReferenceFeatures& f, const GstKeypointsMeta* meta) {
  return f.method == method_of(meta) &&
         static_cast<int>(f.storage) == static_cast<int>(meta->descriptor_type) &&
         f.descriptor_size == static_cast<int>(meta->descriptor_size);
}

gpusift::DescriptorFormat format_of(DescriptorStorage storage) {
  return storage == DescriptorStorage::kUint8 ? gpusift::DescriptorFormat::kUint8
                                              : gpusift::DescriptorFormat::kFloat;
}

gpusift::objects::FeatureSet frame_set(const GstKeypointsMeta* meta) {
  gpusift::objects::FeatureSet set;
  set.keypoints = reinterpret_cast<const gpusift::Keypoint*>(meta->keypoints);
  set.count = static_cast<int>(meta->n_keypoints);
  set.descriptors = gpusift::DescriptorSetView{
      meta->descriptors, set.count, static_cast<int>(meta->descriptor_size),
      format_of(static_cast<DescriptorStorage>(meta->descriptor_type)), gpusift::MemoryKind::kHost};
  return set;
}

gpusift::objects::FeatureSet reference_set(const ReferenceFeatures& f) {
  gpusift::objects::FeatureSet set;
  set.keypoints = f.keypoints.data();
  set.count = static_cast<int>(f.keypoints.size());
  set.descriptors = gpusift::DescriptorSetView{f.descriptors.data(), set.count, f.descriptor_size,
                                               format_of(f.storage), gpusift::MemoryKind::kHost};
  return set;
}

// gpusiftfilter's defaults with the meta's method and descriptor: for keypoints from elsewhere.
gpusift::FeatureConfig settings_from_meta(const GstKeypointsMeta* meta) {
  gpusift::FeatureConfig config = gpusift::gst::FilterSettings::video_defaults();
  config.method = method_of(meta);
  const gpusift::DescriptorFormat format =
      format_of(static_cast<DescriptorStorage>(meta->descriptor_type));
  config.sift.descriptor = config.surf.descriptor = format;
  config.surf.extended = meta->descriptor_size == gpusift::kSurfExtendedDescriptorSize;
  return config;
}

// How the stream's features are made: asked of gpusiftfilter upstream.
gpusift::FeatureConfig stream_feature_settings(GstKeypointMatcher* self,
                                               const GstKeypointsMeta* meta) {
  gpusift::FeatureConfig config;
  GstQuery* query = gpusift::gst::feature_settings_query_new();
  const bool answered = gst_pad_peer_query(GST_BASE_TRANSFORM_SINK_PAD(self), query) &&
                        gpusift::gst::parse_feature_settings_query(query, &config);
  gst_query_unref(query);
  if (answered && config.method == method_of(meta)) {
    GST_INFO_OBJECT(self, "the reference's features are made as upstream's: %s",
                    gpusift::method_name(config.method));
    return config;
  }
  GST_INFO_OBJECT(self,
                  "no gpusiftfilter upstream describes the stream's features: the "
                  "reference's use gpusiftfilter's defaults with the meta's method and "
                  "descriptor");
  return settings_from_meta(meta);
}

bool compute_reference_features(GstKeypointMatcher* self, const GstKeypointsMeta* meta) {
  Runtime& rt = *self->runtime;
  const gpusift::FeatureConfig config = stream_feature_settings(self, meta);
  try {
    std::unique_ptr<gpusift::Extractor> extractor =
        gpusift::gst::keypoint_base_backend(base_of(self)) == Backend::kCuda
            ? gpusift::gst::create_element_cuda_extractor(
                  config, gpusift::gst::keypoint_base_device_id(base_of(self)))
            : gpusift::create_extractor(Backend::kCpu, config);
    rt.reference.compute_features(extractor.get(), config.method);
  } catch (const gpusift::Error& error) {
    keypoint_base_post_error(base_of(self), error);
    return false;
  }
  return true;
}

// The reference's features in the stream's layout: an image's are computed on the first frame
// and again whenever the stream's layout changes; a features file's must match as they are.
bool ensure_reference_features(GstKeypointMatcher* self, const GstKeypointsMeta* meta) {
  Runtime& rt = *self->runtime;
  ObjectReference& reference = rt.reference;
  if (reference.has_features() && same_layout(reference.features(), meta))
    return true;
  if (!reference.is_image()) {
    GST_ELEMENT_ERROR(self, STREAM, FORMAT,
                      ("The reference features do not match the stream's features"),
                      ("%s holds %s; the stream carries %s: write the reference with the "
                       "stream's method and descriptor",
                       reference.path().c_str(), describe_reference(reference.features()).c_str(),
                       describe_meta(meta).c_str()));
    return false;
  }
  if (!compute_reference_features(self, meta))
    return false;
  const ReferenceFeatures& features = reference.features();
  if (!same_layout(features, meta)) {
    GST_ELEMENT_ERROR(self, STREAM, FORMAT,
                      ("Cannot compute the reference's features like the stream's"),
                      ("%s gives %s; the stream carries %s", reference.path().c_str(),
                       describe_reference(features).c_str(), describe_meta(meta).c_str()));
    return false;
  }
  GST_INFO_OBJECT(self, "reference %s: %zu keypoints, %s", reference.path().c_str(),
                  features.keypoints.size(), describe_reference(features).c_str());
  return true;
}

// A reference with fewer keypoints than a homography needs can never be found.
bool check_reference_keypoints(GstKeypointMatcher* self) {
  Runtime& rt = *self->runtime;
  const ReferenceFeatures& features = rt.reference.features();
  const int count = static_cast<int>(features.keypoints.size());
  if (count < kHomographySample) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("The reference has too few keypoints to be found"),
                      ("%s: %d keypoints (%s); a homography needs %d", rt.reference.path().c_str(),
                       count, describe_reference(features).c_str(), kHomographySample));
    return false;
  }
  if (count < rt.settings.params.min_inliers && !rt.few_reference_keypoints_warned) {
    rt.few_reference_keypoints_warned = true;
    GST_ELEMENT_WARNING(self, STREAM, FAILED,
                        ("The reference has fewer keypoints than min-inliers: it cannot be found"),
                        ("%s: %d keypoints, min-inliers=%d", rt.reference.path().c_str(), count,
                         rt.settings.params.min_inliers));
  }
  return true;
}

void post_reference_error(GstKeypointMatcher* self, const gpusift::gst::ReferenceLoadError& e) {
  if (e.failure == gpusift::gst::ReferenceFailure::kNotFound)
    GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND, ("%s", e.message.c_str()),
                      ("%s", e.detail.c_str()));
  else
    GST_ELEMENT_ERROR(self, RESOURCE, OPEN_READ, ("%s", e.message.c_str()),
                      ("%s", e.detail.c_str()));
}

// The outline's bounding box in the frame's pixels (the meta's space scaled to the caps' size);
// false when it covers none.
bool object_pixel_box(const Runtime& rt, const GstKeypointsMeta* meta,
                      gpusift::objects::PixelBox* box) {
  const int frame_width = GST_VIDEO_INFO_WIDTH(&rt.info);
  const int frame_height = GST_VIDEO_INFO_HEIGHT(&rt.info);
  return gpusift::objects::outline_pixel_box(
      rt.detection.corners, static_cast<double>(frame_width) / meta->width,
      static_cast<double>(frame_height) / meta->height, frame_width, frame_height, box);
}

void add_region_of_interest(GstBuffer* buffer, const gpusift::objects::Detection& d,
                            const gpusift::objects::PixelBox& box, const std::string& label) {
  GstVideoRegionOfInterestMeta* roi = gst_buffer_add_video_region_of_interest_meta(
      buffer, label.c_str(), static_cast<guint>(box.x), static_cast<guint>(box.y),
      static_cast<guint>(box.width), static_cast<guint>(box.height));
  gst_video_region_of_interest_meta_add_param(
      roi,
      gst_structure_new("keypointmatcher", "inliers", G_TYPE_UINT, static_cast<guint>(d.inliers),
                        "matches", G_TYPE_UINT, static_cast<guint>(d.matches), nullptr));
}

void attach_detection(GstKeypointMatcher* self, GstBuffer* buffer, const GstKeypointsMeta* meta,
                      const MatcherSettings& settings) {
  Runtime& rt = *self->runtime;
  const gpusift::objects::Detection& d = rt.detection;
  const ReferenceFeatures& reference = rt.reference.features();
  gst_buffer_add_keypoints_object_meta(
      buffer, settings.label.c_str(), meta->width, meta->height,
      static_cast<guint>(reference.width), static_cast<guint>(reference.height),
      d.homography.data(), static_cast<guint>(d.matches), static_cast<guint>(d.inliers));
  gpusift::objects::PixelBox box;
  if (!object_pixel_box(rt, meta, &box))
    return;
  add_region_of_interest(buffer, d, box, settings.label);
  const GstClockTime time = GST_BUFFER_PTS(buffer);
  rt.track.found(time);
  if (settings.analytics &&
      !gpusift::gst::attach_analytics_results(
          buffer, gpusift::gst::FoundObject{&d, box, settings.label, &rt.track, time}))
    GST_WARNING_OBJECT(self, "the analytics relation meta refused a result");
}

void post_frame_message(GstKeypointMatcher* self, GstBuffer* buffer, const GstKeypointsMeta* meta,
                        const std::string& label, gint64 elapsed_us) {
  GstStructure* s = gpusift::gst::keypoint_base_new_frame_message(base_of(self), buffer);
  if (!s)
    return;
  const Runtime& rt = *self->runtime;
  const gpusift::objects::Detection& d = rt.detection;
  gst_structure_set(s, "label", G_TYPE_STRING, label.c_str(), "found", G_TYPE_BOOLEAN, d.found,
                    "matches", G_TYPE_UINT, static_cast<guint>(d.matches), "inliers", G_TYPE_UINT,
                    static_cast<guint>(d.inliers), "keypoints", G_TYPE_UINT, meta->n_keypoints,
                    "reference-keypoints", G_TYPE_UINT,
                    static_cast<guint>(rt.reference.features().keypoints.size()),
                    "processing-time-us", G_TYPE_UINT64, static_cast<guint64>(elapsed_us), nullptr);
  if (d.found) {
    gpusift::gst::set_double_array_field(s, "corners", d.corners.data(), d.corners.size());
    gpusift::gst::set_double_array_field(s, "homography", d.homography.data(), d.homography.size());
  } else {
    gst_structure_set(s, "reason", G_TYPE_STRING, d.reason, nullptr);
  }
  gpusift::gst::keypoint_base_post_frame_message(base_of(self), s);
}

}  // namespace

// The reference loaded and the matcher built on the backend the base class resolved.
bool MatcherWork::open() {
  GstKeypointBaseTransform* base = element_;
  GstKeypointMatcher* self = GST_KEYPOINT_MATCHER(base);
  Runtime& rt = *self->runtime;
  GST_OBJECT_LOCK(self);
  rt.settings = *self->settings;
  GST_OBJECT_UNLOCK(self);
  rt.few_reference_keypoints_warned = false;
  rt.track.restart();
  gst_video_info_init(&rt.info);

  gpusift::gst::ReferenceLoadError error;
  if (!rt.reference.load(rt.settings.reference, kReferenceDecodeTimeoutSeconds, &error)) {
    post_reference_error(self, error);
    return false;
  }
  if (rt.reference.has_features() && !check_reference_keypoints(self))
    return false;
  const Backend backend = gpusift::gst::keypoint_base_backend(base);
  GST_INFO_OBJECT(self, "finding %s on backend %s", rt.settings.reference.c_str(),
                  gpusift::backend_name(backend));
  try {
    rt.matcher =
        backend == Backend::kCuda
            ? gpusift::gst::create_element_cuda_matcher(gpusift::gst::keypoint_base_device_id(base))
            : gpusift::create_matcher(Backend::kCpu);
    rt.finder = std::make_unique<gpusift::objects::ObjectFinder>(rt.matcher.get());
  } catch (const gpusift::Error& e) {
    keypoint_base_post_error(base, e);
    return false;
  }
  return TRUE;
}

void MatcherWork::close() {
  Runtime& rt = runtime;
  rt.finder.reset();
  rt.matcher.reset();
  rt.reference.clear();
  rt.detection = gpusift::objects::Detection{};
}

static gboolean gst_keypoint_matcher_set_caps(GstBaseTransform* trans, GstCaps* incaps,
                                              GstCaps* outcaps) {
  (void)outcaps;
  GstKeypointMatcher* self = GST_KEYPOINT_MATCHER(trans);
  if (!gst_video_info_from_caps(&self->runtime->info, incaps)) {
    GST_ELEMENT_ERROR(self, STREAM, FORMAT, ("Invalid video caps"),
                      ("%" GST_PTR_FORMAT, static_cast<void*>(incaps)));
    return false;
  }
  GST_DEBUG_OBJECT(self, "caps %" GST_PTR_FORMAT, static_cast<void*>(incaps));
  return TRUE;
}

// The whole frame at once: the matcher holds no frame back.
GstKeypointFrameStart MatcherWork::begin(GstBuffer* buffer) {
  GstKeypointBaseTransform* base = element_;
  GstKeypointMatcher* self = GST_KEYPOINT_MATCHER(base);
  Runtime& rt = *self->runtime;
  const gpusift::gst::FeaturesOnBuffer found =
      gpusift::gst::keypoint_base_features_meta(base, buffer);
  const GstKeypointsMeta* meta = found.meta;
  if (!meta)
    return found.refused ? GST_KEYPOINT_FRAME_ERROR : GST_KEYPOINT_FRAME_DONE;
  if (!rt.reference.has_features() || !same_layout(rt.reference.features(), meta)) {
    if (!ensure_reference_features(self, meta) || !check_reference_keypoints(self))
      return GST_KEYPOINT_FRAME_ERROR;
  }

  GST_OBJECT_LOCK(self);
  const MatcherSettings settings = *self->settings;
  GST_OBJECT_UNLOCK(self);
  const gint64 start_us = g_get_monotonic_time();
  const ReferenceFeatures& reference = rt.reference.features();
  try {
    rt.finder->find(reference_set(reference), reference.width, reference.height, frame_set(meta),
                    settings.params, &rt.detection);
  } catch (const gpusift::Error& error) {
    keypoint_base_post_error(base, error);
    return GST_KEYPOINT_FRAME_ERROR;
  }
  const gint64 elapsed_us = g_get_monotonic_time() - start_us;
  const gpusift::objects::Detection& d = rt.detection;
  if (d.found)
    attach_detection(self, buffer, meta, settings);
  else
    rt.track.missed();
  GST_LOG_OBJECT(self, "%s: %d matches, %d inliers%s%s", d.found ? "found" : "not found", d.matches,
                 d.inliers, d.found ? "" : ": ", d.reason);
  post_frame_message(self, buffer, meta, settings.label, elapsed_us);
  return GST_KEYPOINT_FRAME_DONE;
}

// What the element adds to each buffer (gst-inspect's description).
static const char kDescription[] =
    "Finds a known planar object (a reference image or features file) in every frame by "
    "matching its keypoints to the frame's (GstKeypointsMeta) and fitting a homography; where "
    "the object is found, attaches to the buffer a GstVideoRegionOfInterestMeta (its bounding "
    "box) and a GstKeypointsObjectMeta (its corners and homography), and GStreamer analytics "
    "results where built with them. Pixels pass unchanged";

static void gst_keypoint_matcher_class_init(GstKeypointMatcherClass* klass) {
  const auto info =
      gpusift::gst::KeypointElementClassInfo(
          "keypointmatcher", "Keypoint object matcher", kDescription,
          "Where matching, RANSAC and the reference's features run; auto takes the GPU when one "
          "is usable",
          "matching keypoints")
          .reading_descriptors("match", "unsearched");
  gpusift::gst::keypoint_base_class_init(GST_KEYPOINT_BASE_TRANSFORM_CLASS(klass), info);
  gpusift::gst::install_matcher_properties(G_OBJECT_CLASS(klass));

  GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  trans_class->set_caps = GST_DEBUG_FUNCPTR(gst_keypoint_matcher_set_caps);
  GST_DEBUG_CATEGORY_INIT(gst_keypoint_matcher_debug, "keypointmatcher", 0, "keypointmatcher");
}

static void gst_keypoint_matcher_init(GstKeypointMatcher* self) {
  auto* work = new MatcherWork(GST_KEYPOINT_BASE_TRANSFORM(self));
  self->settings = &work->settings;
  self->runtime = &work->runtime;
  gpusift::gst::keypoint_base_set_work(GST_KEYPOINT_BASE_TRANSFORM(self), work);
}
