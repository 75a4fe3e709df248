#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs on the GPU host (see prepare.sh): the test binaries named in TESTS, the SURF beside SIFT
# benchmark at SIZES, the GPU time of each kernel of one SURF extraction (ncu), and, for the
# kernels in KERNELS (regular expressions on mangled names), their instruction mix.
set -u
out=${OUT:-/tmp/gpusift-profile}; mkdir -p $out
cd "$(dirname "$0")/../../.."
[ -d .gpu/runtime ] || tar -C .gpu -xJf .gpu/runtime.tar.xz
source .gpu/runtime/env.sh
nvidia-smi --query-gpu=name --format=csv,noheader
export GPUSIFT_TEST_DATA_DIR=$PWD/tests/data
export GST_PLUGIN_PATH_1_0=$PWD/.gpu/plugins GST_PLUGIN_PATH=$PWD/.gpu/plugins
for t in ${TESTS:-}; do timeout 300 $t > $out/$(basename $t).log 2>&1; echo "$t rc=$? $(grep -E '^\[  (PASSED|FAILED)' $out/$(basename $t).log | tr '\n' ' ')"; grep -E "^\[  FAILED  \]" $out/$(basename $t).log | head; done
B=.gpu/bin/gpusift-bench-cuda
timeout 200 $B --sizes ${SIZES:-1920x1080} --frames 100 --opencv-runs 1 > $out/bench.md 2>&1
sed -n '/SURF ms (pinned)/,$p' $out/bench.md | grep -E '^\| [0-9]'  # SURF/SIFT, variants, equal counts
NCU=$(which ncu || echo /usr/local/cuda/bin/ncu)
# At the GPU's own clocks and with warm caches, as kernels run in the stream.
timeout 300 $NCU --csv --clock-control none --cache-control none --metrics gpu__time_duration.sum --kernel-name regex:'integral_|hessian_kernel|orient_kernel|scan_bins|scatter_kernel|rank_kernel|write_kernel|copy_to_host_kernel|describe_kernel|detect_kernel|Device|mark_first|gather|emit|orientation_kernel|convert|blur|decimate' $B --sizes 1920x1080 --frames 2 --warm-up 0 --opencv-runs 1 > $out/ncu.csv 2>$out/ncu.err
echo ncu rc=$?
tail -3 $out/ncu.err
# The first SURF extraction (default parameters) after the SIFT ones.
python3 tools/scripts/gpu/ncu_summary.py $out/ncu.csv 0 integral_rows_kernel
# Instruction mix of the SURF kernels named in KERNELS (regex on mangled names).
for k in ${KERNELS:-}; do
  timeout 200 $NCU --kernel-name-base mangled --section SourceCounters --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --import-source no -k regex:"$k" --launch-skip 1 -c 1 -o $out/k .gpu/bin/gpusift-bench-cuda --sizes 1920x1080 --frames 2 --warm-up 0 --opencv-runs 1 > /dev/null 2>&1
  $NCU -i $out/k.ncu-rep --page source --csv --print-source sass > $out/$k.csv 2>&1
  echo "== $k"; $NCU -i $out/k.ncu-rep --page details 2>/dev/null | grep -E "Duration|Compute \(SM\) Th|L1/TEX Cache Th|L2 Cache Th|DRAM Th|Registers Per|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Issued Warp|Block Limit"
  python3 tools/scripts/gpu/sass_mix.py $out/$k.csv 2>&1 | head -${SASS_LINES:-3}; rm -f $out/k.ncu-rep
done
