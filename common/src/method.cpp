// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/method.h"

namespace gpusift {

const char* method_name(Method method) {
  switch (method) {
    case Method::kSift:
      return "sift";
    case Method::kSurf:
      return "surf";
  }
  return "unknown";
}

bool parse_method(const std::string& text, Method* method) {
  for (Method candidate : {Method::kSift, Method::kSurf}) {
    if (text == method_name(candidate)) {
      *method = candidate;
      return true;
    }
  }
  return false;
}

}  // namespace gpusift
