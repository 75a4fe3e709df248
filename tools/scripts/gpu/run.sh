#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs on the GPU host (see prepare.sh): the CUDA and GStreamer suites, compute-sanitizer on one
# frame, the extractor and pipeline benchmarks and the main job. Logs go to $OUT; a short
# summary is printed last.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/gpusift-out}
mkdir -p "$out"
[ -d .gpu/runtime ] || tar -C .gpu -xJf .gpu/runtime.tar.xz
[ -d .gpu/bin ] || tar -C .gpu -xJf .gpu/bin.tar.xz
[ -d .gpu/cuda12 ] || [ ! -f .gpu/cuda12.tar.xz ] || tar -C .gpu -xJf .gpu/cuda12.tar.xz
source .gpu/runtime/env.sh
export GST_PLUGIN_PATH_1_0=$PWD/.gpu/plugins GST_PLUGIN_PATH=$PWD/.gpu/plugins
export GPUSIFT_TEST_DATA_DIR=$PWD/tests/data
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
gst-inspect-1.0 gpusiftfilter >"$out/inspect.txt" 2>&1 || echo "gst-inspect failed"

summary=()
mkdir -p "$out/logs"
for test in ${TESTS:-.gpu/bin/test_*}; do
  name=$(basename "$test")
  timeout "${TEST_TIMEOUT:-300}" "$test" >"$out/logs/$name.log" 2>&1
  rc=$?
  echo "$name rc=$rc"
  summary+=("$name rc=$rc $(grep -E '^\[  (PASSED|FAILED)  \]|^SKIP' "$out/logs/$name.log" | head -3 | tr '\n' ' ')")
done

# compute-sanitizer on a frame of each method (binary:filter).
for target in "test_cuda_frames:CudaFrames.PaddedHostRowsEqualPackedRows" \
              "test_cuda_surf:CudaSurf.PinnedAndPitched*" \
              "test_cuda_matcher:*Real4096*:*Duplicates*:CudaRansac.EveryModel*:*FewEmpty*:*TwoStreams*"; do
  for tool in ${SANITIZERS-memcheck racecheck}; do
    log="$out/logs/sanitizer-$tool-${target%%:*}.log"
    timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 ".gpu/bin/${target%%:*}" \
      --gtest_filter="${target#*:}" >"$log" 2>&1
    summary+=("compute-sanitizer $tool ${target%%:*} rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tr '\n' ' ')")
  done
done

if [ "${BENCH_FRAMES:-200}" -gt 0 ]; then
  .gpu/bin/gpusift-bench-cuda --frames "${BENCH_FRAMES:-200}" >"$out/bench.md" 2>&1
  summary+=("extractor bench rc=$?")
  .gpu/bin/gpusift-bench-match --data-dir tests/data >"$out/bench-match.md" 2>&1
  summary+=("matcher bench rc=$?")
fi
echo "pipeline bench"
bash tools/scripts/gpu/pipeline-bench.sh >"$out/pipeline.md" 2>&1
summary+=("pipeline bench rc=$?")
echo "main job"
timeout 60 bash pipelines/gpu-decode.sh tests/data/clip-h264.mp4 "$out/logs/gpu-decode.mp4" \
  >"$out/logs/gpu-decode.log" 2>&1
summary+=("pipelines/gpu-decode.sh rc=$?")
timeout 120 .gpu/bin/gpusift-demo --image tests/data/astronaut.png --frames 90 \
  --mp4 "$out/logs/demo.mp4" --png "$out/demo.png" >"$out/demo.log" 2>&1
summary+=("main job rc=$? $(tail -4 "$out/demo.log" | head -3 | tr '\n' ' ')")

tar -C "$out" -czf "$out/logs.tar.gz" logs && rm -rf "$out/logs"
tail -4 "$out/demo.log"
cat "$out"/*.md
printf '%s\n' "${summary[@]}"
