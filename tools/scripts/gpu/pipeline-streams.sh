#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Instances in one process on the GPU host: one gst-launch-1.0 with 1, 2, 4, 8 and 16 tee
# branches of `queue ! gpusiftfilter backend=cuda ! fakesink`, fed one real 1920x1080 NV12 frame
# repeated by imagefreeze, in system memory or CUDA memory (float descriptors, the element's video
# mode). Prints a markdown table of the aggregate frame rate: branches x frames over gst-launch's
# execution time. The environment as for pipeline-bench.sh (run.sh sets it up); FRAMES (default
# 1000) frames per branch, BRANCHES (default "1 2 4 8 16"), BACKEND (default cuda), GPUS (default
# 1): with more, one independent source and tee per GPU in the same process, each feeding
# BRANCHES / GPUS branches with cuda-device-id set to its GPU. MEMORY=cuda: the frame is uploaded
# once by cudaupload (on the source's GPU) before imagefreeze, so the branches read CUDA memory
# and no host copy is left in the frames' path.
set -u
cd "$(dirname "$0")/../../.." || exit 1
frames=${FRAMES:-1000}
backend=${BACKEND:-cuda}
gpus=${GPUS:-1}
memory=${MEMORY:-system}
upload=()
case $memory in
  system) ;;
  cuda) upload=(cudaupload) ;;
  *)
    echo "pipeline-streams.sh: MEMORY is system or cuda, not $memory" >&2
    exit 1
    ;;
esac
for element in filesrc pnmdec videoconvert videoscale imagefreeze tee queue gpusiftfilter \
  fakesink "${upload[@]}"; do
  if ! gst-inspect-1.0 "$element" >/dev/null 2>&1; then
    echo "pipeline-streams.sh: GStreamer element $element is missing" >&2
    exit 1
  fi
done

chain() {  # gpu branches; one source and its tee, the branches on that GPU
  local branches=""
  for ((i = 0; i < $2; i++)); do
    branches+=" t$1. ! queue ! gpusiftfilter backend=$backend cuda-device-id=$1 ! fakesink"
  done
  local uploaded=""
  [ "$memory" = system ] || uploaded="cudaupload cuda-device-id=$1 ! video/x-raw(memory:CUDAMemory) !"
  echo "filesrc location=tests/data/astronaut.pnm ! pnmdec ! videoconvert ! videoscale !" \
    "video/x-raw,width=1920,height=1080,format=NV12 ! $uploaded imagefreeze num-buffers=$frames !" \
    "tee name=t$1 $branches"
}

seconds_of() {  # branches; prints gst-launch's execution time in seconds, or nothing
  local chains=""
  for ((g = 0; g < gpus; g++)); do chains+=" $(chain "$g" $(($1 / gpus)))"; done
  # shellcheck disable=SC2086 # the chains are separate gst-launch arguments
  timeout 300 gst-launch-1.0 $chains 2>&1 |
    sed -n 's/.*Execution ended after \([0-9:.]*\).*/\1/p' | awk -F: '{print $1*3600 + $2*60 + $3}'
}

echo "| branches on $gpus GPU(s) (1920x1080 NV12 $memory memory, float descriptors, $frames frames each) |" \
  "seconds | aggregate fps | per-branch fps | aggregate / (N x 1-branch fps) |"
echo "|---|---|---|---|---|"
single=""
status=0
for n in ${BRANCHES:-1 2 4 8 16}; do
  seconds=$(seconds_of "$n")
  if [ -z "$seconds" ]; then
    printf '| %s | failed | | | |\n' "$n"
    status=1
    continue
  fi
  fps=$(awk -v b="$n" -v f="$frames" -v s="$seconds" 'BEGIN { printf "%.1f", b * f / s }')
  [ -n "$single" ] || [ "$n" != 1 ] || single=$fps
  awk -v b="$n" -v s="$seconds" -v fps="$fps" -v one="$single" 'BEGIN {
    scale = one == "" ? "" : sprintf("%.2f", fps / (b * one))
    printf "| %d | %.2f | %.0f | %.0f | %s |\n", b, s, fps, fps / b, scale }'
done
exit $status
