// SPDX-License-Identifier: LGPL-2.1-or-later
#include "feature_settings_query.h"

#include <string>

namespace gpusift::gst {

namespace {

// Only the method in use is written: the other method's parameters do not shape the features.
void write_sift(GstStructure* s, const SiftParams& p) {
  gst_structure_set(s, "descriptor", G_TYPE_STRING, descriptor_format_name(p.descriptor),
                    "nfeatures", G_TYPE_INT, p.nfeatures, "distribution", G_TYPE_STRING,
                    keypoint_distribution_name(p.distribution), "n-octave-layers", G_TYPE_INT,
                    p.n_octave_layers, "max-keypoints", G_TYPE_INT, p.max_keypoints,
                    "contrast-threshold", G_TYPE_DOUBLE, static_cast<double>(p.contrast_threshold),
                    "edge-threshold", G_TYPE_DOUBLE, static_cast<double>(p.edge_threshold), "sigma",
                    G_TYPE_DOUBLE, static_cast<double>(p.sigma), "upscale", G_TYPE_BOOLEAN,
                    p.upscale, "max-octaves", G_TYPE_INT, p.max_octaves, nullptr);
}

void write_surf(GstStructure* s, const SurfParams& p) {
  gst_structure_set(s, "descriptor", G_TYPE_STRING, descriptor_format_name(p.descriptor),
                    "nfeatures", G_TYPE_INT, p.nfeatures, "distribution", G_TYPE_STRING,
                    keypoint_distribution_name(p.distribution), "n-octave-layers", G_TYPE_INT,
                    p.n_octave_layers, "max-keypoints", G_TYPE_INT, p.max_keypoints,
                    "hessian-threshold", G_TYPE_DOUBLE, p.hessian_threshold, "n-octaves",
                    G_TYPE_INT, p.n_octaves, "extended", G_TYPE_BOOLEAN, p.extended, "upright",
                    G_TYPE_BOOLEAN, p.upright, nullptr);
}

bool read_float(const GstStructure* s, const char* name, float* out) {
  double value = 0.0;
  if (!gst_structure_get_double(s, name, &value))
    return false;
  *out = static_cast<float>(value);
  return true;
}

bool read_bool(const GstStructure* s, const char* name, bool* out) {
  gboolean value = FALSE;
  if (!gst_structure_get_boolean(s, name, &value))
    return false;
  *out = value;
  return true;
}

bool read_common(const GstStructure* s, DescriptorFormat* descriptor, int* nfeatures,
                 KeypointDistribution* distribution, int* n_octave_layers, int* max_keypoints) {
  const char* name = gst_structure_get_string(s, "descriptor");
  const char* spread = gst_structure_get_string(s, "distribution");
  return name && parse_descriptor_format(name, descriptor) && spread &&
         parse_keypoint_distribution(spread, distribution) &&
         gst_structure_get_int(s, "nfeatures", nfeatures) &&
         gst_structure_get_int(s, "n-octave-layers", n_octave_layers) &&
         gst_structure_get_int(s, "max-keypoints", max_keypoints);
}

bool read_sift(const GstStructure* s, SiftParams* p) {
  return read_common(s, &p->descriptor, &p->nfeatures, &p->distribution, &p->n_octave_layers,
                     &p->max_keypoints) &&
         read_float(s, "contrast-threshold", &p->contrast_threshold) &&
         read_float(s, "edge-threshold", &p->edge_threshold) && read_float(s, "sigma", &p->sigma) &&
         read_bool(s, "upscale", &p->upscale) &&
         gst_structure_get_int(s, "max-octaves", &p->max_octaves);
}

bool read_surf(const GstStructure* s, SurfParams* p) {
  return read_common(s, &p->descriptor, &p->nfeatures, &p->distribution, &p->n_octave_layers,
                     &p->max_keypoints) &&
         gst_structure_get_double(s, "hessian-threshold", &p->hessian_threshold) &&
         gst_structure_get_int(s, "n-octaves", &p->n_octaves) &&
         read_bool(s, "extended", &p->extended) && read_bool(s, "upright", &p->upright);
}

}  // namespace

GstQuery* feature_settings_query_new() {
  return gst_query_new_custom(GST_QUERY_CUSTOM, gst_structure_new_empty(kFeatureSettingsQueryName));
}

bool is_feature_settings_query(GstQuery* query) {
  if (GST_QUERY_TYPE(query) != GST_QUERY_CUSTOM)
    return false;
  const GstStructure* s = gst_query_get_structure(query);
  return s && gst_structure_has_name(s, kFeatureSettingsQueryName);
}

void answer_feature_settings_query(GstQuery* query, const FeatureConfig& config) {
  GstStructure* s = gst_query_writable_structure(query);
  gst_structure_set(s, "method", G_TYPE_STRING, method_name(config.method), nullptr);
  if (config.method == Method::kSurf)
    write_surf(s, config.surf);
  else
    write_sift(s, config.sift);
}

bool parse_feature_settings_query(GstQuery* query, FeatureConfig* config) {
  const GstStructure* s = gst_query_get_structure(query);
  const char* method = s ? gst_structure_get_string(s, "method") : nullptr;
  FeatureConfig parsed;
  if (!method || !parse_method(method, &parsed.method))
    return false;
  const bool complete =
      parsed.method == Method::kSurf ? read_surf(s, &parsed.surf) : read_sift(s, &parsed.sift);
  if (!complete)
    return false;
  *config = parsed;
  return true;
}

}  // namespace gpusift::gst
