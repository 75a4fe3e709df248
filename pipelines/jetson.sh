#!/usr/bin/env bash
# Shows: a Jetson (Orin, build with -Dgpu_architectures=8.7) CSI camera. nvvidconv copies the
# NVMM frame to system memory NV12, which gpusiftfilter uploads through its pinned staging
# buffer. Not run in CI: it needs a Jetson with the L4T GStreamer plugins.
#   pipelines/jetson.sh [SENSOR_ID]
set -euo pipefail
source "$(dirname "$0")/env.sh"
gst-launch-1.0 nvarguscamerasrc sensor-id="${1:-0}" ! \
  "video/x-raw(memory:NVMM),width=1920,height=1080,framerate=30/1" ! nvvidconv ! \
  video/x-raw,format=NV12 ! gpusiftfilter ! keypointoverlay ! nvvidconv ! nv3dsink
