#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A runnable CUDA 12.9 build of the library and the GPU suites (tests/gpu) without a CUDA 12 nvcc:
# clang++-16 compiles the kernel files, host and device, against PyPI's CUDA 12.9 wheels (headers,
# CCCL, libdevice, ptxas 12.9, libcudart_static), through tools/scripts/cuda12/clang-nvcc, an nvcc for
# meson. Run tools/scripts/cuda12/setup-toolchain.sh first (it fetches the wheels). The executables link
# the CUDA runtime statically: on the GPU host they need the driver (libcuda.so.1) and the Debian
# libraries that tools/scripts/gpu/prepare.sh carries (GPUSIFT_CUDA12_RUN_BUILD=build-cuda12-run).
# Environment: GPUSIFT_CUDA12_RUN_BUILD (build-cuda12-run), GPUSIFT_CUDA12_ARCHS (9.0).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$repo"
wheels=$repo/build-cuda12-toolchain/cuda
build=${GPUSIFT_CUDA12_RUN_BUILD:-build-cuda12-run}
[ -x "$wheels/bin/ptxas" ] || {
  echo "no $wheels/bin/ptxas: run tools/scripts/cuda12/setup-toolchain.sh first" >&2
  exit 1
}
command -v clang++-16 > /dev/null || {
  echo "clang++-16 is missing (Debian package clang-16)" >&2
  exit 1
}
[ -x /usr/local/cuda/bin/fatbinary ] || {
  echo "no /usr/local/cuda/bin/fatbinary (CUDA 13's, the one tool PyPI's CUDA 12 lacks)" >&2
  exit 1
}

# The CUDA path clang and meson get: the wheels' layout plus clang's two tools and the nvcc.
# Files are replaced only when they change: meson reconfigures when its native file does.
layout=$repo/build-cuda12-toolchain/clang
mkdir -p "$layout/bin" "$layout/lib64"
ln -sfn "$wheels/include" "$layout/include"
ln -sfn "$wheels/nvvm" "$layout/nvvm"
ln -sfn "$wheels/bin/ptxas" "$layout/bin/ptxas-12.9"
ln -sfn /usr/local/cuda/bin/fatbinary "$layout/bin/fatbinary-13"
ln -sfn "$repo/tools/scripts/cuda12/ptxas-shim" "$layout/bin/ptxas"
ln -sfn "$repo/tools/scripts/cuda12/fatbinary-shim" "$layout/bin/fatbinary"
ln -sfn "$repo/tools/scripts/cuda12/clang-nvcc" "$layout/bin/nvcc"
# Static archives only: nothing can link libcudart.so.12, which the GPU host does not have.
ln -sfn "$wheels"/lib64/*.a "$layout/lib64/"
update() {
  if ! cmp -s - "$1" <<< "$2"; then echo "$2" > "$1"; fi
}
# Meson's cuda dependency matches the toolkit (CUDA_PATH) to the nvcc version by this file.
cudart=$(sed -n 's/^#define CUDART_VERSION *\([0-9]*\)$/\1/p' "$wheels/include/cuda_runtime_api.h")
update "$layout/version.txt" "CUDA Version $((cudart / 1000)).$((cudart % 1000 / 10))"
update "$layout/native.ini" "[binaries]
cuda = '$layout/bin/nvcc'
nvcc = '$layout/bin/nvcc'"

# Meson's cuda dependency finds the toolkit by these variables (CUDA_PATH first), also whenever
# ninja reconfigures: build through this script.
unset CUDA_HOME CUDA_ROOT
export CUDA_PATH=$layout
[ -f "$build/build.ninja" ] || meson setup "$build" --native-file "$layout/native.ini" --werror \
  -Dcuda=enabled -Dgpu_architectures="${GPUSIFT_CUDA12_ARCHS:-9.0}" -Dtests=enabled \
  -Dgst=disabled -Dtools=disabled
# Every executable that tests/gpu/meson.build defines, so that a new suite is never left out
# (after a reconfigure where a meson.build changed, as the introspection files come from it).
ninja -C "$build" build.ninja > /dev/null
mapfile -t targets < <(meson introspect --targets "$build" | /usr/bin/python3 -c '
import json, os, sys
build = os.path.realpath(sys.argv[1])
for target in json.load(sys.stdin):
    if target["type"] == "executable" and target["defined_in"].endswith("tests/gpu/meson.build"):
        print(os.path.relpath(target["filename"][0], build))' "$build")
[ ${#targets[@]} -gt 0 ] || {
  echo "no GPU test executables in $build" >&2
  exit 1
}
ninja -C "$build" "${targets[@]}"
executables=("${targets[@]/#/$build/}")

if ldd "${executables[@]}" | grep -q 'libcudart\.so'; then
  echo "a GPU test executable needs libcudart.so" >&2
  exit 1
fi
echo "CUDA 12.9 GPU test executables (meson test -C $build --suite gpu --no-rebuild):"
printf '  %s\n' "${executables[@]}"
