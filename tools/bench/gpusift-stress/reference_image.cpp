// SPDX-License-Identifier: LGPL-2.1-or-later
#include "reference_image.h"

#include <glib.h>
#include <glib/gstdio.h>

#include <cstdio>

namespace gpusift::stress {

std::string write_reference_image(const soak::SyntheticScene& scene, std::string* error) {
  GError* dir_error = nullptr;
  gchar* folder = g_dir_make_tmp("gpusift-stress-XXXXXX", &dir_error);
  if (folder == nullptr) {
    *error = std::string("cannot make a temporary folder: ") + dir_error->message;
    g_clear_error(&dir_error);
    return "";
  }
  const std::string path = std::string(folder) + "/reference.pgm";
  g_free(folder);
  const int width = scene.texture_width() / 2;
  const int height = scene.texture_height() / 2;
  const int left = width / 2;
  const int top = height / 2;
  std::FILE* file = std::fopen(path.c_str(), "wb");
  bool written = file != nullptr && std::fprintf(file, "P5\n%d %d\n255\n", width, height) > 0;
  for (int row = 0; written && row < height; ++row) {
    const uint8_t* pixels =
        scene.texture() + static_cast<size_t>(top + row) * scene.texture_width() + left;
    written = std::fwrite(pixels, 1, width, file) == static_cast<size_t>(width);
  }
  if (file != nullptr && std::fclose(file) != 0)
    written = false;
  if (!written) {
    *error = "cannot write " + path;
    remove_reference_image(path);
    return "";
  }
  return path;
}

void remove_reference_image(const std::string& path) {
  g_remove(path.c_str());
  gchar* folder = g_path_get_dirname(path.c_str());
  g_rmdir(folder);
  g_free(folder);
}

}  // namespace gpusift::stress
