#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Shows: a Jetson (Orin, build with -Dgpu_architectures=8.7) CSI camera, by one of two routes.
#   nv12 (default): nvvidconv copies the NVMM frame to system memory NV12, which gpusiftfilter
#     uploads through its pinned staging buffer; keypoints drawn on screen.
#   nvmm: the frame stays in NVMM memory, and gpusiftfilter (built with -Dnvmm=enabled) reads its
#     luma plane in place through an EGL image. The camera's surfaces are block-linear, which CUDA
#     sees as an array, so nvvidconv bl-output=false first makes a pitch-linear copy (on the VIC,
#     no CPU copy). keypointoverlay draws in system memory only: the per-frame messages are
#     printed instead, and the camera is shown without keypoints.
# Not run in CI, nor ever on a Jetson yet: it needs one with the L4T GStreamer plugins.
#   pipelines/jetson.sh [nv12|nvmm] [SENSOR_ID]
set -euo pipefail
source "$(dirname "$0")/env.sh"
route=${1:-nv12}
camera=(nvarguscamerasrc sensor-id="${2:-0}" !
  "video/x-raw(memory:NVMM),width=1920,height=1080,framerate=30/1")
case $route in
  nv12)
    require_elements nvarguscamerasrc nvvidconv nv3dsink gpusiftfilter keypointoverlay
    gst-launch-1.0 "${camera[@]}" ! nvvidconv ! video/x-raw,format=NV12 ! gpusiftfilter ! \
      keypointoverlay ! nvvidconv ! nv3dsink
    ;;
  nvmm)
    require_elements nvarguscamerasrc nvvidconv nv3dsink gpusiftfilter
    if ! gst-inspect-1.0 gpusiftfilter | grep 'memory:NVMM' >/dev/null; then
      echo "jetson.sh: this gpusiftfilter takes no memory:NVMM frames: rebuild it on the Jetson" \
        "with -Dnvmm=enabled, or use the nv12 route" >&2
      exit 1
    fi
    gst-launch-1.0 -m "${camera[@]}" ! nvvidconv bl-output=false ! \
      "video/x-raw(memory:NVMM),format=NV12" ! gpusiftfilter backend=cuda post-messages=true ! \
      nv3dsink | grep -E 'gpusiftfilter,'
    ;;
  *)
    echo "usage: jetson.sh [nv12|nvmm] [SENSOR_ID]" >&2
    exit 2
    ;;
esac
