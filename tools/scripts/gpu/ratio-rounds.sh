#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 12's ratio against a reference extractor (CudaSift in a harness kept outside this
# repository), round by round on the GPU host: gpusift-bench-cuda's video-mode row (pinned GRAY8
# with the upload) against the reference's median on the same sizes. The order alternates, ours
# first in odd rounds and the reference first in even ones, since a round's first program can read
# 5-10 % slower. Both sides read the same frames. Env: REFERENCE, a command taking
# `--image FILE.pgm` and printing `size WxH median_ms X` (and `keypoints K`, which the table
# sets beside ours); FRAMES, a folder of NAME-WxH.pgm frames (NAME from IMAGE, default
# astronaut; gravel and coffee are the busy ones); ROUNDS (4), SIZES, BENCH; logs and each
# round's output go to $OUT.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/gpusift-ratio-rounds}
bench=${BENCH:-.gpu/bin/gpusift-bench-cuda}
sizes=${SIZES:-640x480,1280x720,1920x1080,2560x1920,3840x2160}
image=${IMAGE:-astronaut}
: "${REFERENCE:?set REFERENCE to the reference benchmark command}"
: "${FRAMES:?set FRAMES to the folder of the reference frames}"
[ -x "$bench" ] || { echo "no benchmark at $bench (tools/scripts/gpu/prepare.sh makes it)" >&2; exit 1; }
for size in ${sizes//,/ }; do
  [ -f "$FRAMES/$image-$size.pgm" ] || { echo "no frame $FRAMES/$image-$size.pgm" >&2; exit 1; }
done
mkdir -p "$out"

ours() {
  "$bench" --image "$FRAMES/$image-{size}.pgm" --frames 200 --opencv-runs 1 --tables sift \
    --sizes "$sizes" > "$out/ours-$1.md" 2> "$out/ours-$1.err"
}
reference() {
  : > "$out/reference-$1.txt"
  for size in ${sizes//,/ }; do
    $REFERENCE --image "$FRAMES/$image-$size.pgm" >> "$out/reference-$1.txt" 2>> "$out/reference-$1.err"
  done
}
for round in $(seq 1 "${ROUNDS:-4}"); do
  if [ $((round % 2)) = 1 ]; then ours "$round"; reference "$round"; else reference "$round"; ours "$round"; fi
done
python3 "$(dirname "$0")/ratio_rounds.py" "$out" "${ROUNDS:-4}"
