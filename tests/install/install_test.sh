#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# `meson install` into a scratch root, then an application built outside the tree against the
# installed gstreamer-keypoints-1.0 (pkg-config only) runs the installed plugin and reads the
# meta; the installed gpusift-extract runs too.
#   install_test.sh BUILD_DIR PREFIX LIBDIR TEST_SOURCE_DIR IMAGE
set -euo pipefail
build=$1 prefix=$2 libdir=$3 sources=$4 image=$5
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
  "$root/include/gstreamer-1.0/gst/keypoints/gstkeypointsmeta.h"; do
  [ -e "$installed" ] || { echo "not installed: ${installed#$work/root}"; exit 1; }
done

mkdir "$work/app"
cp "$sources/keypoints_reader.c" "$work/app/"
cd "$work/app"
export PKG_CONFIG_PATH=$lib/pkgconfig
# shellcheck disable=SC2046  # pkg-config prints several words on purpose
cc -std=c11 -Wall -Wextra -Werror -o keypoints-reader keypoints_reader.c \
  $(pkg-config --cflags --libs gstreamer-keypoints-1.0)

# Only the installed plugin: no build tree on any search path.
env -u GST_PLUGIN_PATH_1_0 GST_PLUGIN_PATH="$lib/gstreamer-1.0" LD_LIBRARY_PATH="$lib" \
  GST_REGISTRY_1_0="$work/registry.bin" ./keypoints-reader "$lib/gstreamer-1.0"

"$root/bin/gpusift-extract" --backend cpu "$image" -o "$work/features.csv"
rows=$(wc -l <"$work/features.csv")
echo "installed gpusift-extract wrote $rows rows"
[ "$rows" -gt 100 ]
