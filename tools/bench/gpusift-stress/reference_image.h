// SPDX-License-Identifier: LGPL-2.1-or-later
// The matcher's default reference: a part of the synthetic scene, so that the scene's pipelines
// find it whenever the camera passes over it, written where keypointmatcher can decode it.
#pragma once

#include <string>

#include "synthetic_scene.h"

namespace gpusift::stress {

// Writes the middle quarter of the scene's texture (half its width and half its height) as a
// binary PGM into a new temporary folder; returns its path, or "" with *error set.
std::string write_reference_image(const soak::SyntheticScene& scene, std::string* error);

// Removes the file and its folder.
void remove_reference_image(const std::string& path);

}  // namespace gpusift::stress
