#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The fuzzers of tests/fuzz for a bounded time each: a clang build with libFuzzer, ASan and UBSan
# (build-fuzz/, CUDA off), each harness started from a scratch copy of its committed corpus (CI
# never grows the corpus), and the Python reader under atheris (PyPI, in a venv inside
# build-fuzz/). Prints executions and crashes per harness; exits 1 when any harness crashed,
# leaving the reproducers in build-fuzz/crashes/.
#   tools/scripts/ci/fuzz.sh            FUZZ_SECONDS (default 60) per harness
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$repo"
seconds=${FUZZ_SECONDS:-60}
build=build-fuzz
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
if ! [ -f /usr/lib/llvm-16/lib/clang/16/lib/linux/libclang_rt.fuzzer-x86_64.a ] ||
  ! [ -f /usr/lib/llvm-16/lib/libomp.so ]; then
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends \
    clang-16 libclang-rt-16-dev libomp-16-dev python3-venv >/dev/null
fi
if ! [ -f "$build/build.ninja" ]; then
  # Everything the harnesses reach is instrumented for coverage (fuzzer-no-link); the harness
  # binaries link libFuzzer itself.
  CC=clang-16 CXX=clang++-16 meson setup "$build" --buildtype=debugoptimized -Dcuda=disabled \
    -Dfuzzing=enabled \
    -Dintrospection=disabled -Db_sanitize=address,undefined -Db_lundef=false \
    -Dc_args=-fsanitize=fuzzer-no-link -Dcpp_args=-fsanitize=fuzzer-no-link >/dev/null
fi
harnesses=(features_file cli_options keypoints_meta reference)
ninja -C "$build" "${harnesses[@]/#/tests/fuzz/fuzz_}" >/dev/null
export GST_REGISTRY_1_0=$PWD/$build/fuzz-registry.bin
export ASAN_OPTIONS=detect_leaks=0  # GStreamer's type registrations and caches live forever
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
mkdir -p "$build/crashes"
status=0
summary=()
for name in "${harnesses[@]}"; do
  scratch=$build/corpus-$name
  rm -rf "$scratch" && mkdir -p "$scratch"
  cp tests/fuzz/corpus/"$name"/* "$scratch"/
  log=$build/fuzz-$name.log
  rc=0
  "$build/tests/fuzz/fuzz_$name" "$scratch" -max_total_time="$seconds" -print_final_stats=1 \
    -timeout=30 -rss_limit_mb=4096 -artifact_prefix="$build/crashes/$name-" >"$log" 2>&1 || rc=$?
  execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log" | tail -1)
  crashes=$(find "$build/crashes" -name "$name-*" | wc -l)
  summary+=("$(printf '%-16s %10s executions  %d crashes  corpus %d -> %d' "$name" "${execs:-?}" \
    "$crashes" "$(ls tests/fuzz/corpus/"$name" | wc -l)" "$(ls "$scratch" | wc -l)")")
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    status=1
    grep -m1 -E "ERROR: |runtime error|deadly signal" "$log" || tail -5 "$log"
  fi
done

# The Python features reader under atheris.
venv=$build/atheris-venv
if ! [ -x "$venv/bin/python" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install -q atheris
fi
log=$build/fuzz-python_features_file.log
rc=0
PYTHONPATH=tools/programs/python "$venv/bin/python" tests/fuzz/features_file_atheris.py \
  "$build/corpus-features_file" -max_total_time="$seconds" -print_final_stats=1 \
  -artifact_prefix="$build/crashes/python_features_file-" >"$log" 2>&1 || rc=$?
execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log" | tail -1)
crashes=$(find "$build/crashes" -name "python_features_file-*" | wc -l)
summary+=("$(printf '%-16s %10s executions  %d crashes' python_reader "${execs:-?}" "$crashes")")
if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
  status=1
  grep -m1 -E "Uncaught|Error" "$log" || tail -5 "$log"
fi
printf '%s\n' "fuzzing, ${seconds} s each:" "${summary[@]}"
exit "$status"
