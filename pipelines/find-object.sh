#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Shows: a known planar object (a poster, a book cover, a box: REFERENCE, an image or a features
# file) found in every frame of a video file. keypointmatcher matches the frame's SIFT features to
# the reference's and posts one message per frame (found, inliers, the four corners in the frame);
# keypointoverlay draws the object's outline (red) over the keypoints into OUT.mp4. A still image
# works as a one-frame video.
#   pipelines/find-object.sh VIDEO REFERENCE [OUT.mp4] [LABEL]
set -euo pipefail
source "$(dirname "$0")/env.sh"
usage="usage: find-object.sh VIDEO REFERENCE [OUT.mp4] [LABEL]"
video=${1:?$usage}
reference=${2:?$usage}
out=${3:-found.mp4}
label=${4:-object}
gst-launch-1.0 -e -m filesrc location="$video" ! decodebin ! videoconvert ! gpusiftfilter ! \
  keypointmatcher reference="$reference" label="$label" post-messages=true ! \
  keypointoverlay max-keypoints=300 ! videoconvert ! x264enc ! mp4mux ! \
  filesink location="$out" | grep -E 'keypointmatcher,'
