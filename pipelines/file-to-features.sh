#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Shows: the features of every frame of a video file written by keypointfilesink into a features
# file (.gpsf), then read back with numpy (tools/programs/python/gpusift_features.py), one line per frame.
#   pipelines/file-to-features.sh IN.mp4 [OUT.gpsf]
set -euo pipefail
source "$(dirname "$0")/env.sh"
in=${1:?usage: file-to-features.sh IN [OUT.gpsf]}
out=${2:-features.gpsf}
gst-launch-1.0 -e filesrc location="$in" ! decodebin ! videoconvert ! gpusiftfilter ! \
  keypointfilesink location="$out"
/usr/bin/python3 "$here/tools/programs/python/gpusift_features.py" "$out"
