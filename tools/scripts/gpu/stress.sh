#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs on the GPU host (see prepare.sh, which carries .gpu/bin/gpusift-stress): STRESS_PIPELINES
# (default 16) pipelines in one process for STRESS_SECONDS (default 600), half on the CUDA backend
# and half on the CPU, with caps changes, flushing seeks, PAUSED/READY/NULL cycles and EOS
# restarts mixed in at seeded random times. It fails on any error on a bus, a buffer lost outside
# a flush or a stop (or more than the frames in flight at one), a buffer without its keypoints and
# tracks metas, a stall or hang, or host RSS or device memory that grows after the warm-up.
# STRESS_ARGS adds options (gpusift-stress --help), e.g. "--seed 7 --action-interval 1". The log
# goes to stdout and $OUT/stress.log. run.sh runs this when STRESS_SECONDS is set; alone it takes
# STRESS_SECONDS plus about a minute.
set -u
cd "$(dirname "$0")/../../.." || exit 1
out=${OUT:-/tmp/gpusift-out}
mkdir -p "$out"
[ -d .gpu/runtime ] || tar -C .gpu -xJf .gpu/runtime.tar.xz
[ -d .gpu/bin ] || tar -C .gpu -xJf .gpu/bin.tar.xz
source .gpu/runtime/env.sh
export GST_PLUGIN_PATH_1_0=$PWD/.gpu/plugins GST_PLUGIN_PATH=$PWD/.gpu/plugins
# Eight CPU pipelines, each with an OpenMP team as wide as the machine: workers that spin between
# parallel regions would only take the cores from each other and from the CUDA pipelines.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
seconds=${STRESS_SECONDS:-600}
set -o pipefail
# Past the run: the last EOS of each pipeline and the report, well inside the extra five minutes.
# shellcheck disable=SC2086  # STRESS_ARGS is a list of options
timeout $((seconds + 300)) .gpu/bin/gpusift-stress --pipelines "${STRESS_PIPELINES:-16}" \
  --seconds "$seconds" ${STRESS_ARGS:-} 2>&1 |
  tee "$out/stress.log"
