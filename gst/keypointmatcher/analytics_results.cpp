// SPDX-License-Identifier: LGPL-2.1-or-later
#include "keypointmatcher/analytics_results.h"

#include <vector>

#if defined(GPUSIFT_HAVE_GST_ANALYTICS) && GST_CHECK_VERSION(1, 24, 0)
#define GPUSIFT_ANALYTICS_RESULTS 1
// The results' own headers: analytics.h brings gsttensor.h, whose flexible array member C++
// refuses (-Wpedantic).
#include <gst/analytics/gstanalyticsobjectdetectionmtd.h>
#include <gst/analytics/gstanalyticsobjecttrackingmtd.h>
#include <gst/keypoints/gstkeypointssupportmtd.h>
#endif

namespace gpusift::gst {

void ObjectTrack::found(GstClockTime time) {
  if (id_ != 0)
    return;
  id_ = next_id_++;
  first_seen_ = time;
}

#ifdef GPUSIFT_ANALYTICS_RESULTS

bool analytics_results_built() {
  return true;
}

namespace {

bool relate_both_ways(GstAnalyticsRelationMeta* meta, guint a, guint b) {
  return gst_analytics_relation_meta_set_relation(meta, GST_ANALYTICS_REL_TYPE_RELATE_TO, a, b) &&
         gst_analytics_relation_meta_set_relation(meta, GST_ANALYTICS_REL_TYPE_RELATE_TO, b, a);
}

}  // namespace

bool attach_analytics_results(GstBuffer* buffer, const FoundObject& object) {
  const objects::Detection& d = *object.detection;
  GstAnalyticsRelationMeta* meta = gst_buffer_get_analytics_relation_meta(buffer);
  if (!meta)
    meta = gst_buffer_add_analytics_relation_meta(buffer);
  if (!meta)
    return false;
  const gfloat confidence =
      d.matches > 0 ? static_cast<gfloat>(d.inliers) / static_cast<gfloat>(d.matches) : 0.0f;
  GstAnalyticsODMtd detection;
  if (!gst_analytics_relation_meta_add_od_mtd(meta, g_quark_from_string(object.label.c_str()),
                                              object.box.x, object.box.y, object.box.width,
                                              object.box.height, confidence, &detection))
    return false;

  GstAnalyticsTrackingMtd tracking;
  if (!gst_analytics_relation_meta_add_tracking_mtd(meta, object.track->id(),
                                                    object.track->first_seen(), &tracking) ||
      !gst_analytics_tracking_mtd_update_last_seen(&tracking, object.time) ||
      !relate_both_ways(meta, detection.id, tracking.id))
    return false;

  // The support as the frame's keypoint indices, which the keypoints meta's count bounds.
  std::vector<guint32> indices(d.supporting_keypoints.begin(), d.supporting_keypoints.end());
  GstKeypointsSupportMtd support;
  return gst_keypoints_support_mtd_add(meta, indices.data(), static_cast<guint>(indices.size()),
                                       &support) &&
         relate_both_ways(meta, detection.id, support.id);
}

#else

bool analytics_results_built() {
  return false;
}

bool attach_analytics_results(GstBuffer* buffer, const FoundObject& object) {
  (void)buffer;
  (void)object;
  return true;
}

#endif

}  // namespace gpusift::gst
