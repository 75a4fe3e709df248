#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A CUDA 12 toolchain beside the CUDA 13 one, for the Jetson stacks (JetPack 6 stays on CUDA 12,
# and CUDA 13 compiles nothing for Volta, 7.2).
#
# 1. Installs PyPI's CUDA 12 wheels (nvcc, runtime, CCCL) into build-cuda12-toolchain/wheels and
#    assembles a toolkit layout from them in build-cuda12-toolchain/cuda: bin/ptxas, nvvm/,
#    include/ (runtime, crt and CCCL headers), lib64/ (libcudart_static.a, libcudart.so.12).
#    Those wheels carry no nvcc driver, cicc, cudafe++, fatbinary or nvlink (checked for 12.0.140
#    to 12.9.86), so that layout cannot build the project; tools/scripts/ci/cuda12-build.sh compiles the
#    device code with it through clang instead, and tools/scripts/cuda12/build-runnable.sh builds the GPU
#    suites from it with clang as the CUDA compiler.
# 2. Configures and builds build-cuda12 (gpu_architectures "7.2 8.7 9.0") with a complete CUDA 12
#    toolkit when there is one: CUDA12_ROOT (e.g. /usr/local/cuda-12.6 on JetPack 6, or the
#    runfile's /usr/local/cuda-12.9), else the assembled layout if it ever has bin/nvcc.
#    Exit status 3 when there is none.
# On the GPU host, with a CUDA 12 toolkit there, then: meson test -C build-cuda12
# Environment: CUDA12_ROOT (skips step 1), GPUSIFT_CUDA12_BUILD (build-cuda12),
# GPUSIFT_CUDA12_ARCHS ("7.2 8.7 9.0"), GPUSIFT_MESON_ARGS (more meson arguments, e.g. --werror).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$repo"
toolchain=$repo/build-cuda12-toolchain
root=$toolchain/cuda
wheels=(nvidia-cuda-nvcc-cu12==12.9.86 nvidia-cuda-runtime-cu12==12.9.79
  nvidia-cuda-cccl-cu12==12.9.27)
stamp="${wheels[*]}"
# With CUDA12_ROOT the wheels are not needed (the GPU host has no network).
if [ -z "${CUDA12_ROOT:-}" ] && [ "$(cat "$toolchain/.installed" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "$toolchain"
  mkdir -p "$toolchain"
  pip=(python3 -m pip)
  command -v python3 > /dev/null || pip=(pip3)
  "${pip[@]}" install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps \
    --target "$toolchain/wheels" "${wheels[@]}"
  w=$toolchain/wheels/nvidia
  mkdir -p "$root/bin" "$root/include" "$root/lib64" "$root/nvvm"
  ln -s "$w/cuda_nvcc/bin/ptxas" "$root/bin/ptxas"
  for d in libdevice lib64 include; do ln -s "$w/cuda_nvcc/nvvm/$d" "$root/nvvm/$d"; done
  for d in "$w/cuda_runtime/include" "$w/cuda_nvcc/include" "$w/cuda_cccl/include"; do
    for f in "$d"/*; do
      case ${f##*/} in __init__.py | __pycache__) ;; *) ln -s "$f" "$root/include/" ;; esac
    done
  done
  for f in "$w"/cuda_runtime/lib/*.a "$w"/cuda_runtime/lib/*.so*; do ln -s "$f" "$root/lib64/"; done
  ln -s libcudart.so.12 "$root/lib64/libcudart.so"
  echo "$stamp" > "$toolchain/.installed"
fi
[ -n "${CUDA12_ROOT:-}" ] || "$root/bin/ptxas" --version | tail -1

nvcc_root=
if [ -n "${CUDA12_ROOT:-}" ]; then
  nvcc_root=$CUDA12_ROOT
elif [ -x "$root/bin/nvcc" ]; then
  nvcc_root=$root
fi
if [ -z "$nvcc_root" ] || [ ! -x "$nvcc_root/bin/nvcc" ]; then
  echo "no CUDA 12 nvcc: PyPI's nvidia-cuda-nvcc-cu12 has only ptxas and libnvvm; set" \
    "CUDA12_ROOT to a CUDA 12 toolkit to configure build-cuda12" >&2
  exit 3
fi
version=$("$nvcc_root/bin/nvcc" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
if [ "$version" != 12 ]; then
  echo "$nvcc_root/bin/nvcc is CUDA $version, not 12" >&2
  exit 1
fi
builddir=${GPUSIFT_CUDA12_BUILD:-build-cuda12}
export PATH=$nvcc_root/bin:$PATH CUDA_PATH=$nvcc_root
# shellcheck disable=SC2086 # GPUSIFT_MESON_ARGS is a list of arguments
[ -f "$builddir/build.ninja" ] || meson setup "$builddir" -Dcuda=enabled \
  -Dgpu_architectures="${GPUSIFT_CUDA12_ARCHS:-7.2 8.7 9.0}" ${GPUSIFT_MESON_ARGS:-}
ninja -C "$builddir"
