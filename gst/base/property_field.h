// SPDX-License-Identifier: LGPL-2.1-or-later
/* Properties declared once, with the settings field that holds them: PropertyTable installs each
 * GParamSpec together with the field it reads and writes, so that an element adds a property in
 * one place and its set_property/get_property need no switch. A field is an int, bool, float (a
 * double property), double, std::string or an enum whose values are the GEnum's. */
#pragma once

#include <glib-object.h>
#include <gst/gst.h>

#include <map>
#include <string>
#include <type_traits>

namespace gpusift::gst {

inline void from_value(const GValue* value, int* field) {
  *field = g_value_get_int(value);
}
inline void from_value(const GValue* value, bool* field) {
  *field = g_value_get_boolean(value);
}
inline void from_value(const GValue* value, double* field) {
  *field = g_value_get_double(value);
}
inline void from_value(const GValue* value, float* field) {
  *field = static_cast<float>(g_value_get_double(value));
}
inline void from_value(const GValue* value, std::string* field) {
  const char* text = g_value_get_string(value);
  *field = text ? text : "";
}
template <typename E, typename = std::enable_if_t<std::is_enum_v<E>>>
void from_value(const GValue* value, E* field) {
  *field = static_cast<E>(g_value_get_enum(value));
}

inline void to_value(GValue* value, int field) {
  g_value_set_int(value, field);
}
inline void to_value(GValue* value, bool field) {
  g_value_set_boolean(value, field);
}
inline void to_value(GValue* value, double field) {
  g_value_set_double(value, field);
}
inline void to_value(GValue* value, const std::string& field) {
  g_value_set_string(value, field.c_str());
}
template <typename E, typename = std::enable_if_t<std::is_enum_v<E>>>
void to_value(GValue* value, E field) {
  g_value_set_enum(value, static_cast<gint>(field));
}

// One settings field as a property's value.
class PropertyField {
 public:
  PropertyField() = default;  // no field: set and get do nothing
  template <typename T>
  explicit PropertyField(T* field)
      : field_(field),
        set_([](void* f, const GValue* v) { from_value(v, static_cast<T*>(f)); }),
        get_([](const void* f, GValue* v) { to_value(v, *static_cast<const T*>(f)); }) {}

  void set(const GValue* value) const {
    if (field_)
      set_(field_, value);
  }
  void get(GValue* value) const {
    if (field_)
      get_(field_, value);
  }

 private:
  void* field_ = nullptr;
  void (*set_)(void*, const GValue*) = nullptr;
  void (*get_)(const void*, GValue*) = nullptr;
};

// The properties of one element class over its settings struct S.
template <typename S>
class PropertyTable {
 public:
  using FieldOf = PropertyField (*)(S&);

  // Installs `pspec` as property `id` of `klass`, held by the field that `field_of` returns.
  void install(GObjectClass* klass, guint id, GParamSpec* pspec, FieldOf field_of) {
    g_object_class_install_property(klass, id, pspec);
    fields_[id] = field_of;
  }
  void set(S* settings, guint id, const GValue* value) const { field(settings, id).set(value); }
  void get(const S& settings, guint id, GValue* value) const {
    field(const_cast<S*>(&settings), id).get(value);
  }

 private:
  PropertyField field(S* settings, guint id) const {
    const auto it = fields_.find(id);
    return it == fields_.end() ? PropertyField() : it->second(*settings);
  }

  std::map<guint, FieldOf> fields_;
};

}  // namespace gpusift::gst

namespace gpusift::gst {

// The flags of the elements' properties: changeable at any time (applied at the next frame), or
// only in NULL and READY.
inline constexpr GParamFlags kMutablePlaying = static_cast<GParamFlags>(
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
inline constexpr GParamFlags kReadyOnly =
    static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

// What keypointtracker and keypointmatcher both take: Lowe's ratio (blurb: whose matches it
// keeps) and the RANSAC inlier threshold.
inline GParamSpec* ratio_param_spec(const char* blurb, float default_value) {
  constexpr double kMinRatio = 0.01;  // the matcher refuses 0
  return g_param_spec_double("ratio", "Ratio", blurb, kMinRatio, 1.0, default_value,
                             kMutablePlaying);
}
inline GParamSpec* ransac_threshold_param_spec(float default_value) {
  return g_param_spec_double("ransac-threshold", "RANSAC threshold",
                             "Largest reprojection error of an inlier, in pixels", 0.01, 1000.0,
                             default_value, kMutablePlaying);
}

}  // namespace gpusift::gst
