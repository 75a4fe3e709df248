// SPDX-License-Identifier: LGPL-2.1-or-later
// Which feature method an extractor runs, with the parameters of each.
#pragma once

#include <string>

#include "gpusift/sift_params.h"
#include "gpusift/surf_params.h"

namespace gpusift {

enum class Method { kSift, kSurf };

const char* method_name(Method method);
// Accepts "sift", "surf".
bool parse_method(const std::string& text, Method* method);

struct FeatureConfig {
  Method method = Method::kSift;
  SiftParams sift;  // used when method is kSift
  SurfParams surf;  // used when method is kSurf
};

}  // namespace gpusift
