#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Shows: an RTSP camera or stream, keypoints drawn on screen; latency kept low.
#   pipelines/rtsp.sh rtsp://HOST/PATH
set -euo pipefail
source "$(dirname "$0")/env.sh"
gst-launch-1.0 rtspsrc location="${1:?usage: rtsp.sh URL}" latency=100 ! decodebin ! \
  videoconvert ! video/x-raw,format=NV12 ! gpusiftfilter ! keypointoverlay ! videoconvert ! \
  autovideosink sync=false
