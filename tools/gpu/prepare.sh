#!/usr/bin/env bash
# Builds the CUDA backend here (sm_90 by default) and gathers what a GPU host needs to run its
# tests and benchmarks into .gpu/ (git-ignored): the binaries and their library closure.
# Then, with the device tool:  carry .gpu and tests/data; command: bash tools/gpu/run.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${GPUSIFT_GPU_BUILD:-$repo/build-gpu}
archs=${GPUSIFT_GPU_ARCHS:-9.0}
cd "$repo"
tools/fetch-test-images.sh
[ -d "$build" ] || meson setup "$build" -Dcuda=enabled -Dgpu_architectures="$archs" --werror
ninja -C "$build"
rm -rf .gpu && mkdir -p .gpu/bin .gpu/lib
mapfile -t binaries < <(find "$build/tests/gpu" -maxdepth 1 -type f -executable -name 'test_*')
binaries+=("$build/tools/gpusift-bench-cuda")
cp "${binaries[@]}" .gpu/bin/
skip='^(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|ld-linux.*|libcuda|libnvidia-.*)\.so'
for f in "${binaries[@]}"; do ldd "$f" | awk '/=> \//{print $3}'; done | sort -u |
  while read -r lib; do
    [[ $(basename "$lib") =~ $skip ]] || cp -L "$lib" .gpu/lib/
  done
du -sh .gpu
