#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The fuzzers of tests/fuzz for a bounded time each: a clang build with libFuzzer, ASan and UBSan
# (build-fuzz/, CUDA off), each harness started from a scratch copy of its committed corpus (CI
# never grows the corpus), and the Python reader under atheris (PyPI, in a venv inside
# build-fuzz/). Prints executions and crashes per harness; exits 1 when any harness crashed,
# leaving the reproducers in build-fuzz/crashes/ (a harness's own are cleared when it starts).
#
# tests/fuzz/crashes/<harness>/ holds reproducers of crashes found and not fixed yet; each is run
# once and reported as still open or fixed (then move it into corpus/<harness>/). They fail the
# run only with FUZZ_FAIL_ON_OPEN=1, so that a known open crash does not stop CI; one found anew
# by the fuzzer does.
#   tools/scripts/ci/fuzz.sh            FUZZ_SECONDS (default 60) per harness, FUZZ_JOBS
#                                       (default: the number of cores) harnesses at a time
#   tools/scripts/ci/fuzz.sh NAME...    only those harnesses (python_features_file: atheris)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$repo"
seconds=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-$(nproc)}
build="build-fuzz"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
# libFuzzer and the sanitizer runtimes (libclang-rt-16-dev), OpenMP for clang (the CPU
# backend), venv for atheris.
if ! [ -f /usr/lib/llvm-16/lib/clang/16/lib/linux/libclang_rt.fuzzer-x86_64.a ] ||
  ! [ -f /usr/lib/llvm-16/lib/libomp.so ] || ! dpkg -s python3-venv >/dev/null 2>&1; then
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
all=(features_file cli_options keypoints_meta object_meta reference python_features_file)
harnesses=("${@:-${all[@]}}")
targets=()
for name in "${harnesses[@]}"; do
  [ "$name" = python_features_file ] || targets+=("tests/fuzz/fuzz_$name")
done
[ ${#targets[@]} -eq 0 ] || ninja -C "$build" "${targets[@]}" >/dev/null

# The Python reader's fuzzer: atheris, whose wheel carries its own libFuzzer.
venv=$build/atheris-venv
if [[ " ${harnesses[*]} " == *" python_features_file "* ]] && ! [ -x "$venv/bin/python" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install -q atheris
fi

export GST_REGISTRY_1_0=$PWD/$build/fuzz-registry.bin
export ASAN_OPTIONS=detect_leaks=0  # GStreamer's type registrations and caches live forever
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# Symbolized stacks where a symbolizer is installed (clang-16 does not bring one).
symbolizer=$(command -v llvm-symbolizer-16 || command -v llvm-symbolizer || true)
[ -z "$symbolizer" ] || export ASAN_SYMBOLIZER_PATH=$symbolizer
mkdir -p "$build/crashes"

# One harness, from a scratch copy of its corpus; its log in build-fuzz/fuzz-NAME.log.
fuzz_one() {
  local name=$1 corpus=tests/fuzz/corpus/$1 scratch=$build/corpus-$1 extra=()
  rm -f "$build/crashes/$name-"*
  [ "$name" = python_features_file ] && corpus=tests/fuzz/corpus/features_file
  rm -rf "$scratch" && mkdir -p "$scratch" && cp "$corpus"/* "$scratch"/
  local command=("$build/tests/fuzz/fuzz_$name")
  case $name in
    # A regular file never holds more than the input (-max_len), and through a pipe the reader
    # must let its memory follow the bytes: any large allocation is a finding.
    features_file) extra=(-malloc_limit_mb=256) ;;
    python_features_file)
      command=(env PYTHONPATH=tools/programs/python "$venv/bin/python"
        tests/fuzz/features_file_atheris.py) ;;
  esac
  "${command[@]}" "$scratch" -max_total_time="$seconds" -print_final_stats=1 -timeout=30 \
    -rss_limit_mb=4096 "${extra[@]}" -artifact_prefix="$build/crashes/$name-" \
    >"$build/fuzz-$name.log" 2>&1
}

declare -A started
running=0
for name in "${harnesses[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz_one "$name" &
  started[$name]=$!
  running=$((running + 1))
done

count() { find "$1" -maxdepth 1 -type f | wc -l; }
status=0
summary=()
for name in "${harnesses[@]}"; do
  rc=0
  wait "${started[$name]}" || rc=$?
  log=$build/fuzz-$name.log
  execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log" | tail -1)
  crashes=$(find "$build/crashes" -name "$name-*" | wc -l)
  corpus=tests/fuzz/corpus/$name
  [ "$name" = python_features_file ] && corpus=tests/fuzz/corpus/features_file
  summary+=("$(printf '%-21s %10s executions  %d crashes  corpus %d -> %d' "$name" \
    "${execs:-?}" "$crashes" "$(count "$corpus")" "$(count "$build/corpus-$name")")")
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    status=1
    echo "== $name crashed (exit $rc); reproducer: $(find "$build/crashes" -name "$name-*" | head -1)"
    # The finding and the first frame in the project's code.
    grep -m1 -E "ERROR: |runtime error|deadly signal|Uncaught|AssertionError" "$log" || true
    grep -m1 -E "#[0-9]+ .* in .*$repo/(common|gst|tools|tests)/" "$log" || tail -5 "$log"
  fi
done

# Known open crashes, each run once.
for name in "${harnesses[@]}"; do
  for input in tests/fuzz/crashes/"$name"/*; do
    [ -f "$input" ] || continue
    if [ "$name" = python_features_file ]; then
      echo "?? $input: replay it by hand (features_file_atheris.py --replay)"
      continue
    fi
    if "$build/tests/fuzz/fuzz_$name" "$input" >"$build/known-crash.log" 2>&1; then
      summary+=("fixed: $input no longer crashes; move it into tests/fuzz/corpus/$name/")
    else
      summary+=("open: $input still crashes")
      [ "${FUZZ_FAIL_ON_OPEN:-0}" = 1 ] && status=1
    fi
  done
done
printf '%s\n' "fuzzing, ${seconds} s each, ${jobs} at a time:" "${summary[@]}"
exit "$status"
