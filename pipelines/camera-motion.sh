#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Shows: the camera motion keypointtracker finds, from its per-frame element messages (-m prints
# them: matches, inliers, tracks-alive, the 3x3 frame-to-frame and cumulative motions). A file is
# read to its end with a homography per frame. Without one, FRAMES frames of the SMPTE test
# pattern pan left by 4 px a frame: a translation, whose x shift (the motion's third value) reads
# -4. The frames go through keypointoverlay, which draws every track's last positions.
#   pipelines/camera-motion.sh [VIDEO_FILE | "" FRAMES]
set -euo pipefail
source "$(dirname "$0")/env.sh"
if [ -n "${1:-}" ]; then
  input=(filesrc location="$1" ! decodebin)
  model=homography
else
  input=(videotestsrc num-buffers="${2:-30}" pattern=smpte horizontal-speed=4 !
    video/x-raw,width=640,height=480)
  model=translation
fi
gst-launch-1.0 -m "${input[@]}" ! videoconvert ! gpusiftfilter ! \
  keypointtracker post-messages=true motion-model=$model ! keypointoverlay ! fakesink |
  grep -E 'keypointtracker,'
