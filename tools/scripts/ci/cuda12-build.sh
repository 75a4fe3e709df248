#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The CUDA 12 build (the Jetson toolchain: JetPack 6 stays on CUDA 12, and CUDA 13 compiles
# nothing for Volta) for gpu_architectures "7.2 8.7 9.0": Xavier, Orin, Hopper.
#
# tools/scripts/cuda12/setup-toolchain.sh installs PyPI's CUDA 12.9 wheels. With a complete CUDA 12
# toolkit (CUDA12_ROOT) it configures and builds build-cuda12 with nvcc and this script is done.
# PyPI's wheels have no nvcc driver, so otherwise every kernel file is compiled with clang
# (clang++-16, Debian's) against the wheels' CUDA 12.9 headers and CCCL: the device code for each
# architecture to PTX, assembled by the wheels' CUDA 12.9 ptxas for that architecture, and the
# host side of each file checked against the CUDA 12.9 runtime API. Warnings are errors.
# clang 16 writes PTX ISA 7.8 (CUDA 11.8's); the PTX is declared 8.1, the ISA of nvcc 12.1, which
# lifts the 4 KiB limit on kernel parameters (the SURF detection kernels take 12 KiB; nvcc 12.0
# and older cannot build them, kernels/cuda/meson.build refuses those).
set -euo pipefail
cd "$(dirname "$0")/../../.."
archs=${GPUSIFT_CUDA12_ARCHS:-7.2 8.7 9.0}
rc=0
GPUSIFT_MESON_ARGS=${GPUSIFT_MESON_ARGS:---werror} tools/scripts/cuda12/setup-toolchain.sh || rc=$?
[ "$rc" -eq 3 ] || exit "$rc"

root=$PWD/build-cuda12-toolchain/cuda
out=$PWD/build-cuda12-toolchain/objects
rm -rf "$out"
mkdir -p "$out"
clang=${CLANGXX:-clang++-16}
if ! command -v "$clang" > /dev/null && [ "$clang" = clang++-16 ] && [ "$(id -u)" -eq 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends clang-16 > /dev/null
fi
command -v "$clang" > /dev/null || {
  echo "$clang is missing (Debian package clang-16)" >&2
  exit 1
}
# The files nvcc compiles with --fmad=false in kernels/cuda/meson.build.
exact=$(sed -n '/cuda_exact_objects.process(/,/)/p' kernels/cuda/meson.build |
  grep -o "'[a-z_]*\.cu'" | tr -d "'")
common=(-x cuda --cuda-path="$root" -std=c++17 -O3 -DNDEBUG -DGPUSIFT_HAVE_CUDA
  -Icommon/include -Icommon/api/include -Ikernels/include
  -Wall -Wextra -Werror -Wno-unknown-cuda-version
  # clang 16 and CUDA 12.9's CCCL: CCCL's concept emulation declares variadic functions (never
  # called) and it puts [[deprecated]] where clang 16 refuses it.
  -Xclang -fcuda-allow-variadic-functions -DCCCL_IGNORE_DEPRECATED_API
  # clang's optimizer may not honour an unroll pragma that nvcc does: a clang remark only.
  -Wno-pass-failed)
jobs=()
for source in kernels/cuda/*.cu; do
  name=$(basename "$source" .cu)
  fp=-ffp-contract=fast
  grep -qx "$name.cu" <<< "$exact" && fp=-ffp-contract=off
  jobs+=("$source host $fp")
  for arch in $archs; do jobs+=("$source sm_${arch/./} $fp"); done
done
export clang root out
# shellcheck disable=SC2016 # the inner shell expands its own variables
printf '%s\n' "${jobs[@]}" | xargs -P "${GPUSIFT_JOBS:-2}" -L 1 bash -c '
  source=$0 target=$1 fp=$2 name=$(basename "$source" .cu)
  shift 3
  if [ "$target" = host ]; then
    $clang '"${common[*]}"' $fp --cuda-host-only --cuda-gpu-arch=sm_72 -fsyntax-only "$source"
  else
    $clang '"${common[*]}"' $fp --cuda-device-only --cuda-gpu-arch=$target -S "$source" \
      -o "$out/$name.$target.ptx" &&
      sed -i "s/^\.version 7\.8\$/.version 8.1/" "$out/$name.$target.ptx" &&
      "$root/bin/ptxas" -arch=$target -O3 "$out/$name.$target.ptx" -o "$out/$name.$target.cubin"
  fi || { echo "FAILED: $source ($target)" >&2; exit 255; }'
n=$(find "$out" -name '*.cubin' | wc -l)
echo "CUDA 12.9 device code: $n cubins ($(echo "$archs" | wc -w) architectures, clang $($clang \
  -dumpversion), $("$root/bin/ptxas" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p') ptxas)"

# The host C++ that includes CUDA headers, as the CUDA 13 build compiles it (its
# compile_commands.json), against the CUDA 12.9 headers instead.
reference=${GPUSIFT_CUDA12_REFERENCE_BUILD:-build}
/usr/bin/python3 - "$reference" "$root" "${GPUSIFT_JOBS:-2}" <<'PY'
import concurrent.futures, json, os, re, shlex, subprocess, sys
build, root, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])
seen, commands = set(), []
for entry in json.load(open(os.path.join(build, "compile_commands.json"))):
    args = shlex.split(entry["command"])
    source = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
    if "nvcc" in os.path.basename(args[0]) or "-I/usr/local/cuda/include" not in args or \
            source in seen or not re.search(r'#include [<"][^>"]*cuda', open(source).read()):
        continue
    seen.add(source)
    out, skip = [], 0
    for a in args:
        if skip:
            skip -= 1
        elif a in ("-o", "-MQ", "-MF"):
            skip = 1
        elif a in ("-MD", "-c"):
            pass
        else:
            out.append(a.replace("/usr/local/cuda/include", root + "/include"))
    commands.append((source, entry["directory"], out + ["-fsyntax-only"]))
def run(item):
    source, directory, command = item
    done = subprocess.run(command, cwd=directory, capture_output=True, text=True)
    return source, done.returncode, done.stderr
failed = 0
with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
    for source, rc, err in pool.map(run, commands):
        if rc:
            failed += 1
            print(f"FAILED: {source}\n{err}", file=sys.stderr)
print(f"CUDA 12.9 host C++: {len(commands) - failed} of {len(commands)} files with CUDA headers "
      "compile")
sys.exit(1 if failed else 0)
PY
