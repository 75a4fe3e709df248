#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `meson install` into a scratch root, then an application built outside the tree against the
# installed gstreamer-keypoints-1.0 (pkg-config only) runs the installed plugin and reads the
# meta; another, written against the tracks and object metas' old names, builds and runs; the
# installed gpusift-extract runs too.
# The Python package gpusift and gpusift-features are imported and run from the scratch root.
# With the results sinks, their JSON Schema is installed too.
#   install_test.sh BUILD_DIR PREFIX LIBDIR TEST_SOURCE_DIR IMAGE PYTHON_PACKAGE_DIR SCHEMA
set -euo pipefail
build=$1 prefix=$2 libdir=$3 sources=$4 image=$5 python_dir=${6:-} schema=${7:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! meson install -C "$build" --no-rebuild --destdir "$work/root" >"$work/install.log" 2>&1; then
  cat "$work/install.log"
  exit 1
fi
root=$work/root$prefix
lib=$root/$libdir
for installed in "$lib/gstreamer-1.0/libgstgpusift.so" "$lib/libgstkeypoints-1.0.so" \
  "$lib/pkgconfig/gstreamer-keypoints-1.0.pc" "$root/bin/gpusift-extract" \
  "$root/include/gstreamer-1.0/gst/keypoints/gstkeypointsmeta.h" \
  "$root/include/gstreamer-1.0/gst/keypoints/gstkeypointstracksmeta.h" \
  "$root/include/gstreamer-1.0/gst/keypoints/gstkeypointsobjectmeta.h" \
  "$root/include/gstreamer-1.0/gst/keypoints/gstkeypointtracksmeta.h" \
  "$root/include/gstreamer-1.0/gst/keypoints/gstkeypointobjectmeta.h"; do
  [ -e "$installed" ] || { echo "not installed: ${installed#$work/root}"; exit 1; }
done
if [ -n "$schema" ]; then
  # DATADIR/gpusift/schema/..., relative to the prefix as meson gives it.
  [ -e "$root/$schema" ] || { echo "not installed: $prefix/$schema"; exit 1; }
  cmp "$root/$schema" "$sources/../../docs/schema/gpusift-results-v1.schema.json"
fi

mkdir "$work/app" "$work/uninstalled"
cp "$sources/keypoints_reader.c" "$work/app/"
# The same application against the build tree, through meson's uninstalled .pc file.
# shellcheck disable=SC2046
PKG_CONFIG_PATH=$build/meson-uninstalled cc -std=c11 -Wall -Wextra -Werror \
  -o "$work/uninstalled/keypoints-reader" "$sources/keypoints_reader.c" \
  $(PKG_CONFIG_PATH=$build/meson-uninstalled pkg-config --cflags --libs gstreamer-keypoints-1.0)
echo "built against the uninstalled gstreamer-keypoints-1.0"
cd "$work/app"
export PKG_CONFIG_PATH=$lib/pkgconfig
# shellcheck disable=SC2046  # pkg-config prints several words on purpose
cc -std=c11 -Wall -Wextra -Werror -o keypoints-reader keypoints_reader.c \
  $(pkg-config --cflags --libs gstreamer-keypoints-1.0)

# Only the installed plugin: no build tree on any search path.
env -u GST_PLUGIN_PATH_1_0 GST_PLUGIN_PATH="$lib/gstreamer-1.0" LD_LIBRARY_PATH="$lib" \
  GST_REGISTRY_1_0="$work/registry.bin" ./keypoints-reader "$lib/gstreamer-1.0"

# The tracks and object metas' names from before the rename: an application written against them
# and their old headers still compiles, warned of each deprecated name, links and runs.
cp "$sources/old_names_app.c" "$work/app/"
# shellcheck disable=SC2046
if ! LC_ALL=C cc -std=c11 -Wall -Wextra -Werror -Wno-error=deprecated-declarations \
  -o old-names-app old_names_app.c $(pkg-config --cflags --libs gstreamer-keypoints-1.0) \
  2>"$work/old-names.log"; then
  cat "$work/old-names.log"
  exit 1
fi
if ! grep -q "deprecated: Use 'gst_buffer_add_keypoints_tracks_meta' instead" "$work/old-names.log"
then
  echo "the old names compiled without deprecation warnings:"
  cat "$work/old-names.log"
  exit 1
fi
echo "old names: $(grep -c 'is deprecated' "$work/old-names.log") deprecation warnings"
LD_LIBRARY_PATH="$lib" ./old-names-app

"$root/bin/gpusift-extract" --backend cpu "$image" -o "$work/features.csv"
rows=$(wc -l <"$work/features.csv")
echo "installed gpusift-extract wrote $rows rows"
[ "$rows" -gt 100 ]

[ -n "$python_dir" ] || exit 0
packages=$work/root$python_dir
for installed in "$packages/gpusift/__init__.py" "$packages/gpusift/metas.py" \
  "$packages/gpusift/features_file.py" "$root/bin/gpusift-features" \
  "$lib/girepository-1.0/GstKeypoints-1.0.typelib"; do
  [ -e "$installed" ] || { echo "not installed: ${installed#$work/root}"; exit 1; }
done
"$root/bin/gpusift-extract" --backend cpu "$image" -o "$work/features.gpsf"
# The launcher names the package's final place; the scratch root's comes first through PYTHONPATH.
PYTHONPATH=$packages "$root/bin/gpusift-features" "$work/features.gpsf"
env -u GST_PLUGIN_PATH_1_0 PYTHONPATH="$packages" GST_PLUGIN_PATH="$lib/gstreamer-1.0" \
  GI_TYPELIB_PATH="$lib/girepository-1.0" LD_LIBRARY_PATH="$lib" \
  GST_REGISTRY_1_0="$work/registry.bin" \
  /usr/bin/python3 "$sources/installed_package_check.py" "$packages" "$image" "$work/features.gpsf"
