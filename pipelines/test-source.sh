#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Shows: the per-frame element messages (-m prints them: n-keypoints, processing-time-us) on a
# moving test pattern, without a display.
#   pipelines/test-source.sh [FRAMES]
set -euo pipefail
source "$(dirname "$0")/env.sh"
gst-launch-1.0 -m videotestsrc num-buffers="${1:-30}" pattern=ball ! \
  video/x-raw,format=NV12,width=640,height=480 ! gpusiftfilter post-messages=true ! fakesink |
  grep -E 'gpusiftfilter,' | head -n "${1:-30}"
