#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Soak: frames of a synthetic panning camera through gpusiftfilter (float descriptors) in one
# process, with the host's resident memory and the GPU's used memory sampled every 1,000 frames;
# fails when either grows after the warm-up or a frame lacks its features. Prints the series.
#   tools/scripts/soak.sh cpu   5,000 frames of 160x120 per method (10,000 in all) on the CPU backend (CI)
#   tools/scripts/soak.sh gpu   100,000 frames of 1920x1080 per method on CUDA (the GPU host)
# METHODS (default "sift surf") and FRAMES override; GPUSIFT_SOAK names the gpusift-soak binary
# (default build/tools/bench/gpusift-soak), GST_PLUGIN_PATH the plugin's folder (default the build's);
# SOAK_OUT, when set, receives one CSV of the series per method.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:-}
soak=${GPUSIFT_SOAK:-$repo/build/tools/bench/gpusift-soak}
case "$mode" in
  cpu)
    args=(--backend cpu --size 160x120 --warmup-frames 1000 --host-tolerance-mib 2)
    frames=${FRAMES:-5000}
    # Tiny frames make many short parallel regions, where spinning OpenMP workers only slow a
    # busy CI machine down.
    export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
    ;;
  gpu)
    args=(--backend cuda --size 1920x1080 --warmup-frames 5000)
    frames=${FRAMES:-100000}
    ;;
  *)
    echo "usage: tools/scripts/soak.sh cpu|gpu" >&2
    exit 2
    ;;
esac
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$(dirname "$soak")/../../gst}
status=0
for method in ${METHODS:-sift surf}; do
  csv=()
  [ -z "${SOAK_OUT:-}" ] || csv=(--csv "$SOAK_OUT/soak-$mode-$method.csv")
  "$soak" "${args[@]}" --method "$method" --frames "$frames" "${csv[@]}" || status=1
done
exit "$status"
