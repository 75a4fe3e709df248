#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Shows: any video file decoded on the CPU, SIFT on every frame (GPU when present), the keypoints
# drawn by keypointoverlay, re-encoded to MP4.
#   pipelines/file-to-mp4.sh IN.mp4 [OUT.mp4]
set -euo pipefail
source "$(dirname "$0")/env.sh"
in=${1:?usage: file-to-mp4.sh IN [OUT.mp4]}
out=${2:-keypoints.mp4}
gst-launch-1.0 -e filesrc location="$in" ! decodebin ! videoconvert ! \
  gpusiftfilter ! keypointoverlay ! videoconvert ! x264enc ! mp4mux ! filesink location="$out"
