// SPDX-License-Identifier: LGPL-2.1-or-later
/* Registers a property's enum GType once, whichever thread asks first, from its values as the
 * C++ enum has them. */
#pragma once

#include <glib-object.h>

#include <initializer_list>
#include <mutex>

namespace gpusift::gst {

template <typename E>
struct EnumEntry {
  E value;
  const char* name;  // the description gst-inspect shows
  const char* nick;  // what gst-launch takes
};

// The GType named `type_name`, registered at the first call with `entries`; later calls return
// it. The GEnumValue table lives as long as the program, as GLib requires.
template <typename E>
GType static_enum_type(const char* type_name, std::initializer_list<EnumEntry<E>> entries) {
  static GType type = 0;
  static std::once_flag once;
  std::call_once(once, [&] {
    auto* values = new GEnumValue[entries.size() + 1]();  // zeroed: the last one ends the table
    GEnumValue* out = values;
    for (const EnumEntry<E>& e : entries)
      *out++ = GEnumValue{static_cast<gint>(e.value), e.name, e.nick};
    type = g_enum_register_static(type_name, values);
  });
  return type;
}

}  // namespace gpusift::gst
