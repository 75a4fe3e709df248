#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Pipeline throughput on the GPU host: one real 1920x1080 frame repeated by imagefreeze through
# gpusiftfilter (and keypointtracker after it) into fakesink, from system memory and from CUDA memory, with and without
# descriptors. Prints a markdown table (frames per second from gst-launch's execution time).
# SIFT_PROPS: more gpusiftfilter properties (default none: the video mode), e.g. "sigma=1.6".
set -u
frames=${FRAMES:-2000}
run() {  # label, format, the pipeline after the decoded and scaled frame
  local seconds
  seconds=$(timeout 120 gst-launch-1.0 filesrc location=tests/data/astronaut.pnm ! pnmdec ! \
    videoconvert ! videoscale ! "video/x-raw,width=1920,height=1080,format=$2" $3 2>&1 |
    sed -n 's/.*Execution ended after \([0-9:.]*\).*/\1/p' | awk -F: '{print $1*3600 + $2*60 + $3}')
  if [ -z "$seconds" ]; then
    printf '| %s | failed |\n' "$1"
  else
    awk -v label="$1" -v n="$frames" -v s="$seconds" 'BEGIN { printf "| %s | %.0f |\n", label, n / s }'
  fi
}
freeze="! imagefreeze num-buffers=$frames"
sift="! gpusiftfilter backend=cuda ${SIFT_PROPS:-}"
echo "| pipeline (1920x1080, gpusiftfilter defaults ${SIFT_PROPS:-}, $frames frames) | fps |"
echo "|---|---|"
run "NV12 system memory, float descriptors" NV12 "$freeze $sift ! fakesink"
run "NV12 system memory, float descriptors, keypointtracker (homography), defaults (auto: 2 frames in flight)" \
  NV12 "$freeze $sift ! keypointtracker backend=cuda ! fakesink"
run "NV12 system memory, float descriptors, keypointtracker (homography) max-frames-in-flight=1" \
  NV12 "$freeze $sift ! keypointtracker backend=cuda max-frames-in-flight=1 ! fakesink"
run "NV12 system memory, float descriptors, queue, keypointtracker (homography) max-frames-in-flight=1" \
  NV12 "$freeze $sift ! queue ! keypointtracker backend=cuda max-frames-in-flight=1 ! fakesink"
run "NV12 system memory, no descriptors" NV12 "$freeze $sift descriptor=none ! fakesink"
run "GRAY8 system memory, float descriptors" GRAY8 "$freeze $sift ! fakesink"
run "GRAY8 system memory, no descriptors" GRAY8 "$freeze $sift descriptor=none ! fakesink"
run "NV12 CUDA memory (cudaupload every frame), float descriptors" NV12 \
  "$freeze ! cudaupload ! video/x-raw(memory:CUDAMemory) $sift ! fakesink"
run "NV12 CUDA memory (uploaded once), float descriptors" NV12 \
  "! cudaupload ! video/x-raw(memory:CUDAMemory) $freeze $sift ! fakesink"
run "NV12 CUDA memory (uploaded once), float descriptors, keypointtracker (homography), defaults (auto: 2 frames in flight)" NV12 \
  "! cudaupload ! video/x-raw(memory:CUDAMemory) $freeze $sift ! keypointtracker backend=cuda ! fakesink"
run "NV12 CUDA memory (uploaded once), float descriptors, keypointtracker (homography) max-frames-in-flight=1" \
  NV12 "! cudaupload ! video/x-raw(memory:CUDAMemory) $freeze $sift ! keypointtracker backend=cuda max-frames-in-flight=1 ! fakesink"
run "NV12 CUDA memory (uploaded once), float descriptors, queue, keypointtracker (homography) max-frames-in-flight=1" \
  NV12 "! cudaupload ! video/x-raw(memory:CUDAMemory) $freeze $sift ! queue ! keypointtracker backend=cuda max-frames-in-flight=1 ! fakesink"
run "NV12 CUDA memory (uploaded once), no descriptors" NV12 \
  "! cudaupload ! video/x-raw(memory:CUDAMemory) $freeze $sift descriptor=none ! fakesink"
