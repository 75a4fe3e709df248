#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The main job, on the embedded default: astronaut.png (scikit-image's data) filmed by a
# synthetic camera with known motion, through gpusiftfilter (GPU when present, else CPU) and
# keypointoverlay into out/gpusift-demo.mp4 and out/gpusift-demo.png. Prints keypoints per
# frame, how many matches to the first frame agree with the true motion, and the frame rate.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${GPUSIFT_BUILD:-$repo/build}
out=${GPUSIFT_OUT:-$repo/out}
mkdir -p "$out"
export GST_PLUGIN_PATH="$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
"$build/tools/programs/gpusift-demo" --image "$repo/tests/data/astronaut.png" \
  --mp4 "$out/gpusift-demo.mp4" --png "$out/gpusift-demo.png" "$@"
