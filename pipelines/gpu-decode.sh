#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Shows: H.264 decoded by NVDEC into CUDA memory and read by gpusiftfilter on the GPU without a
# host copy (the GstCudaContext is shared with nvh264dec); the frames are downloaded only to
# draw the overlay and encode.
#   pipelines/gpu-decode.sh IN.mp4 [OUT.mp4]
set -euo pipefail
source "$(dirname "$0")/env.sh"
in=${1:?usage: gpu-decode.sh IN.mp4 [OUT.mp4]}
gst-launch-1.0 -e filesrc location="$in" ! qtdemux ! h264parse ! nvh264dec ! \
  "video/x-raw(memory:CUDAMemory)" ! gpusiftfilter backend=cuda ! cudadownload ! \
  keypointoverlay ! videoconvert ! x264enc ! mp4mux ! filesink location="${2:-keypoints.mp4}"
