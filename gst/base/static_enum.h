// SPDX-License-Identifier: LGPL-2.1-or-later
/* Registers an enum GType for a property once, whichever thread asks first. */
#pragma once

#include <glib-object.h>

namespace gpusift::gst {

// `values` ends with {0, nullptr, nullptr} and lives as long as the program (a static array).
inline GType static_enum_type(GType* type, const char* name, const GEnumValue* values) {
  if (g_once_init_enter(type))
    g_once_init_leave(type, g_enum_register_static(name, values));
  return *type;
}

}  // namespace gpusift::gst
