#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs on the GPU host (see prepare.sh, which carries .gpu/bin/gpusift-soak): the GPU soak of
# tools/scripts/soak.sh, 100,000 frames of 1920x1080 per method through gpusiftfilter on CUDA with the
# host RSS and the device memory sampled every 1,000 frames. The series go to $OUT as CSV.
# Each method takes minutes: METHODS=sift or METHODS=surf runs one per command.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/gpusift-out}
mkdir -p "$out"
[ -d .gpu/runtime ] || tar -C .gpu -xJf .gpu/runtime.tar.xz
[ -d .gpu/bin ] || tar -C .gpu -xJf .gpu/bin.tar.xz
source .gpu/runtime/env.sh
export GST_PLUGIN_PATH_1_0=$PWD/.gpu/plugins GST_PLUGIN_PATH=$PWD/.gpu/plugins
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
GPUSIFT_SOAK=$PWD/.gpu/bin/gpusift-soak SOAK_OUT=$out bash tools/scripts/soak.sh gpu
