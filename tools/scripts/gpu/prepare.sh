#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds the CUDA backend here (sm_90 by default) and gathers what a GPU host needs to run the
# tests, benchmarks and pipelines into .gpu/ (git-ignored): binaries, the plugin, the meta
# library and a GStreamer/OpenCV runtime (../shared/gpu/bundle-runtime.sh). Then, with the
# device tool: carry .gpu and tests/data; command: bash tools/scripts/gpu/run.sh
# GPUSIFT_CUDA12_RUN_BUILD (e.g. build-cuda12-run): also the CUDA 12.9 GPU suites, which
# tools/scripts/cuda12/build-runnable.sh builds there (after tools/scripts/cuda12/setup-toolchain.sh), into
# .gpu/cuda12/; on the GPU host: TESTS='.gpu/cuda12/test_*' SANITIZERS= bash tools/scripts/gpu/run.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
build=${GPUSIFT_GPU_BUILD:-$repo/build-gpu}
archs=${GPUSIFT_GPU_ARCHS:-9.0}
cd "$repo"
tools/scripts/fetch-test-images.sh
[ -f "$build/build.ninja" ] || meson setup "$build" -Dcuda=enabled -Dgpu_architectures="$archs" --werror
ninja -C "$build"

clip=tests/data/clip-h264.mp4
# 4:2:0 so that NVDEC can decode it.
[ -s "$clip" ] || gst-launch-1.0 -q filesrc location=tests/data/astronaut.pnm ! pnmdec ! \
  videoconvert ! videoscale ! video/x-raw,width=1280,height=720 ! imagefreeze num-buffers=60 ! \
  videoconvert ! video/x-raw,format=I420 ! x264enc speed-preset=ultrafast ! h264parse ! mp4mux ! \
  filesink location="$clip"

rm -rf .gpu && mkdir -p .gpu/bin .gpu/plugins
mapfile -t binaries < <(find "$build/tests/gpu" "$build/tests/gst" -maxdepth 1 -type f \
  -executable -name 'test_*')
# Nothing here may link OpenCV's imgcodecs: its dependency tree is too large to carry.
binaries+=("$build/tools/bench/gpusift-bench-cuda" "$build/tools/bench/gpusift-bench-match" "$build/tools/programs/gpusift-demo"
  "$build/tools/bench/gpusift-soak" "$build/tools/bench/gpusift-bench-streams"
  "$build/tools/bench/gpusift-stress")
cp "${binaries[@]}" .gpu/bin/
cuda12=()
if [ -n "${GPUSIFT_CUDA12_RUN_BUILD:-}" ]; then
  tools/scripts/cuda12/build-runnable.sh > /dev/null
  mapfile -t cuda12 < <(find "$GPUSIFT_CUDA12_RUN_BUILD/tests/gpu" -maxdepth 1 -type f -executable \
    -name 'test_*')
  mkdir -p .gpu/cuda12
  cp "${cuda12[@]}" .gpu/cuda12/
fi
cp "$build"/gst/libgstgpusift.so .gpu/plugins/
BUNDLE_PLUGINS="x264 coretracers" bash ../shared/gpu/bundle-runtime.sh .gpu/runtime "${binaries[@]}" \
  "${cuda12[@]}" "$build"/gst/libgstgpusift.so >/dev/null
cp -L "$build"/gst/keypoints/libgstkeypoints-1.0.so.0 .gpu/runtime/lib/
# The runtime, the binaries (each carries the same kernels: about 90 MB, 9 MB compressed) and the
# CUDA 12 suites travel compressed, under the device tool's 64 MiB; run.sh unpacks them.
tar -C .gpu -cJf .gpu/runtime.tar.xz runtime && rm -rf .gpu/runtime
tar -C .gpu -cf - bin | xz -T0 > .gpu/bin.tar.xz && rm -rf .gpu/bin
if [ -d .gpu/cuda12 ]; then tar -C .gpu -cJf .gpu/cuda12.tar.xz cuda12 && rm -rf .gpu/cuda12; fi
du -sh .gpu
