#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Shows: a V4L2 camera live, keypoints drawn on screen.
#   pipelines/camera.sh [/dev/video0]
set -euo pipefail
source "$(dirname "$0")/env.sh"
gst-launch-1.0 v4l2src device="${1:-/dev/video0}" ! videoconvert ! \
  video/x-raw,format=NV12 ! gpusiftfilter ! keypointoverlay ! videoconvert ! autovideosink
