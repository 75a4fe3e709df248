#!/usr/bin/env bash
# Runs on the GPU host (see prepare.sh): the CUDA suites, compute-sanitizer on one frame, and the
# benchmark. Logs go to $OUT; a short table is printed last.
set -u
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GPUSIFT_TEST_DATA_DIR=$PWD/tests/data
out=${OUT:-/tmp/gpusift-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"

summary=()
for test in .gpu/bin/test_*; do
  name=$(basename "$test")
  "$test" >"$out/$name.log" 2>&1
  rc=$?
  summary+=("$name rc=$rc $(grep -E '^\[  (PASSED|FAILED)  \]|SKIP' "$out/$name.log" | tr '\n' ' ')")
done

one_frame='CudaFrames.PaddedHostRowsEqualPackedRows'
if command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck; do
    compute-sanitizer --tool "$tool" --error-exitcode 9 .gpu/bin/test_cuda_frames \
      --gtest_filter="$one_frame" >"$out/sanitizer-$tool.log" 2>&1
    summary+=("compute-sanitizer $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer-$tool.log" | tr '\n' ' ')")
  done
fi

.gpu/bin/gpusift-bench-cuda --frames "${BENCH_FRAMES:-200}" >"$out/bench.md" 2>&1
summary+=("bench rc=$?")

grep -hE "recall|homography|matches" "$out"/test_*.log | head -60
cat "$out/bench.md"
printf '%s\n' "${summary[@]}"
