#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Puts the real test images (scikit-image's data set, from Debian's python3-skimage package)
# into tests/data. The .deb is unpacked, not installed, so none of its Python dependencies come.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
dest=${1:-$repo/tests/data}
images=(astronaut.png coffee.png chelsea.png camera.png brick.png grass.png gravel.png coins.png)

have_all=true
for image in "${images[@]}"; do
  [ -s "$dest/$image" ] && [ -s "$dest/${image%.png}.pnm" ] || have_all=false
done
$have_all && exit 0

work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download python3-skimage >/dev/null)
dpkg -x "$work"/python3-skimage_*.deb "$work/unpacked"
source_dir=$(dirname "$(find "$work/unpacked" -path '*skimage/data/astronaut.png' | head -n 1)")
mkdir -p "$dest"
for image in "${images[@]}"; do
  cp "$source_dir/$image" "$dest/$image"
  # PNM copies let the test suites read images without OpenCV's imgcodecs and its large
  # dependency tree, which a GPU host without those libraries would otherwise need.
  pngtopnm -quiet "$source_dir/$image" >"$dest/${image%.png}.pnm"
done
echo "test images in $dest"
