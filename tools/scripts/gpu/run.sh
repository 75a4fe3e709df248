#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs on the GPU host (see prepare.sh): the CUDA and GStreamer suites, compute-sanitizer on one
# frame, the extractor and pipeline benchmarks and the main job; with STRESS_SECONDS set (e.g.
# 540), also the stress run of stress.sh for that long. Logs go to $OUT; a short
# summary is printed last, with every skipped test by name. Exits 1 when anything failed, when a
# whole suite skipped (exit 77: no GPU seen, which on a GPU host is a broken setup) or when a test
# skipped for a reason that EXPECTED_SKIPS (an extended regex over gtest's skip messages) does not
# name.
set -u
cd "$(dirname "$0")/../../.." || exit 1
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
failures=()
skipped=()
expected_skips=${EXPECTED_SKIPS:-'cv::SIFT always doubles the image|a GPU is present|GPUSIFT_FIND_OBJECT_EXAMPLE is not set|needs two CUDA devices, 1 present'}
# Every "[  SKIPPED ] Suite.Test" of a gtest log with the message gtest printed before it.
skips_of() {
  awk '/: Skipped$/ { getline reason } /^\[  SKIPPED \] .* \([0-9]+ ms\)$/ { print $4 " (" reason ")" }' "$1"
}
mkdir -p "$out/logs"
for test in ${TESTS:-.gpu/bin/test_*}; do
  name=$(basename "$test")
  timeout "${TEST_TIMEOUT:-300}" "$test" >"$out/logs/$name.log" 2>&1
  rc=$?
  echo "$name rc=$rc"
  summary+=("$name rc=$rc $(grep -E '^\[  (PASSED|FAILED)  \]|^SKIP' "$out/logs/$name.log" | head -3 | tr '\n' ' ')")
  [ "$rc" -eq 0 ] || failures+=("$name exited $rc$([ "$rc" -eq 77 ] && echo ' (skipped whole: no GPU seen)')")
  while IFS= read -r skip; do
    [ -n "$skip" ] || continue
    skipped+=("$name: $skip")
    grep -qE "$expected_skips" <<<"$skip" || failures+=("$name: unexpected skip $skip")
  done < <(skips_of "$out/logs/$name.log")
done

# compute-sanitizer on a frame of each method (binary:filter).
for target in "test_cuda_frames:CudaFrames.PaddedHostRowsEqualPackedRows" \
              "test_cuda_surf:CudaSurf.PinnedAndPitched*" \
              "test_cuda_matcher:*Real4096*:*Duplicates*:CudaRansac.EveryModel*:*FewEmpty*:*TwoStreams*"; do
  for tool in ${SANITIZERS-memcheck racecheck}; do
    log="$out/logs/sanitizer-$tool-${target%%:*}.log"
    timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 ".gpu/bin/${target%%:*}" \
      --gtest_filter="${target#*:}" >"$log" 2>&1
    rc=$?
    summary+=("compute-sanitizer $tool ${target%%:*} rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tr '\n' ' ')")
    [ "$rc" -eq 0 ] || failures+=("compute-sanitizer $tool ${target%%:*} exited $rc")
  done
done

if [ "${BENCH_FRAMES:-200}" -gt 0 ]; then
  .gpu/bin/gpusift-bench-cuda --frames "${BENCH_FRAMES:-200}" >"$out/bench.md" 2>&1
  summary+=("extractor bench rc=$?")
  # Busy frames beside the astronaut: a fine texture and a cluttered photo, stretched to each
  # size (their keypoint counts are in the tables).
  for image in ${BENCH_BUSY_IMAGES-gravel coffee}; do
    .gpu/bin/gpusift-bench-cuda --frames "${BENCH_FRAMES:-200}" --image "tests/data/$image.pnm" \
      >"$out/bench-$image.md" 2>&1
    summary+=("extractor bench $image rc=$?")
  done
  .gpu/bin/gpusift-bench-match --data-dir tests/data >"$out/bench-match.md" 2>&1
  summary+=("matcher bench rc=$?")
fi
# The stress run, when asked for: STRESS_PIPELINES (16) pipelines on both backends for
# STRESS_SECONDS (stress.sh; its log in $out/stress.log).
if [ -n "${STRESS_SECONDS:-}" ]; then
  echo "stress ${STRESS_SECONDS} s"
  bash tools/scripts/gpu/stress.sh >/dev/null 2>&1
  summary+=("stress rc=$? $(grep -E '^(cuda|cpu|all) ' "$out/stress.log" 2>/dev/null | tr -s ' ' | tr '\n' ';')")
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

# Benchmarks, pipelines and the main job: a non-zero exit in the summary is a failure too.
for line in "${summary[@]}"; do
  case "$line" in
    *bench\ rc=[1-9]* | *.sh\ rc=[1-9]* | main\ job\ rc=[1-9]* | stress\ rc=[1-9]*) failures+=("$line") ;;
  esac
done

tar -C "$out" -czf "$out/logs.tar.gz" logs && rm -rf "$out/logs"
tail -4 "$out/demo.log"
cat "$out"/*.md
# The stress run's table, memory verdicts and failures.
[ -z "${STRESS_SECONDS:-}" ] || sed -n '/^backend /,$p' "$out/stress.log" 2>/dev/null
printf '%s\n' "${summary[@]}"
printf 'skipped: %d test(s)\n' "${#skipped[@]}"
printf '  %s\n' "${skipped[@]}"
if [ "${#failures[@]}" -gt 0 ]; then
  printf 'FAILED: %s\n' "${failures[@]}"
  exit 1
fi
echo "all passed"
