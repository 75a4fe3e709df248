// SPDX-License-Identifier: LGPL-2.1-or-later
// The CSV output of gpusift-extract: x,y,size,angle,response,octave,d0,...,d127 for SIFT;
// SURF adds class_id (the sign of the Laplacian) before its 64 or 128 d columns.
#pragma once

#include <string>

#include "gpusift/features.h"
#include "gpusift/method.h"

namespace gpusift::tools {

// Floats are written with 9 significant digits, enough to read back the same float; uint8
// descriptors as integers; no d columns for DescriptorFormat::kNone.
// Throws std::runtime_error (one line, naming the path) when the file cannot be written.
// path "-" writes to stdout.
void write_features_csv(const std::string& path, const Features& features, Method method);

}  // namespace gpusift::tools
