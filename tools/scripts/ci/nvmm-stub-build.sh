#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The memory:NVMM (Jetson) code path, compiled and linked without a Jetson: against the test
# stand-in of nvbufsurface.h (tests/nvmm_stub, our own declarations, not NVIDIA's layout) and a
# stub libnvbufsurface whose calls all fail. Configures build-nvmm-stub with -Dnvmm=enabled and, as
# on JetPack 6 (GStreamer 1.20), -Dgst-cuda=disabled, builds
# the plugin and its NVMM suite with warnings as errors, checks that gpusiftfilter offers
# memory:NVMM caps, and runs the suite (malformed NVMM buffers; no frame is ever mapped). Proves
# that the code compiles and that bad input fails cleanly, nothing about a real Jetson.
set -euo pipefail
cd "$(dirname "$0")/../../.."
builddir=${GPUSIFT_NVMM_STUB_BUILD:-build-nvmm-stub}
stub=$PWD/tests/nvmm_stub
[ -x /usr/local/cuda/bin/nvcc ] && export PATH=/usr/local/cuda/bin:$PATH
# meson looks for the library at configure time, so it is built first, beside the build folder's
# meson files.
libdir=$(mkdir -p "$builddir/nvmm-stub" && cd "$builddir/nvmm-stub" && pwd)
cc -shared -fPIC -Wall -Wextra -Werror -I"$stub/include" -Wl,-soname,libnvbufsurface.so \
  -o "$libdir/libnvbufsurface.so" "$stub/nvbufsurface_stub.c"
[ -f "$builddir/build.ninja" ] || meson setup "$builddir" -Dnvmm=enabled -Dgst-cuda=disabled \
  -Djetson_multimedia_api="$stub" -Dnvbufsurface_libdir="$libdir" --werror
if ! meson introspect "$builddir" --buildoptions | /usr/bin/python3 -c '
import json, sys
options = {o["name"]: o["value"] for o in json.load(sys.stdin)}
sys.exit(options["nvmm"] != "enabled" or options["gst-cuda"] != "disabled" or
         options["jetson_multimedia_api"] != sys.argv[1])' "$stub"
then
  echo "$builddir is not configured with -Dnvmm=enabled -Dgst-cuda=disabled against $stub" >&2
  exit 1
fi
ninja -C "$builddir" gst/libgstgpusift.so tests/gst/test_gpusiftfilter_nvmm
imports=$(nm -D --undefined-only "$builddir/gst/libgstgpusift.so")
if ! grep -q NvBufSurfaceMapEglImage <<<"$imports"; then
  echo "$builddir's plugin does not call NvBufSurfaceMapEglImage: the NVMM path was left out" >&2
  exit 1
fi
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
templates=$(GST_PLUGIN_PATH="$builddir/gst" GST_REGISTRY_1_0="$builddir/nvmm-registry.bin" \
  gst-inspect-1.0 gpusiftfilter | sed -n '/^Pad Templates:/,/^Element has no clocking/p')
echo "$templates"
for pad in SINK SRC; do
  if ! sed -n "/$pad template/,/template:/p" <<<"$templates" | grep 'memory:NVMM' >/dev/null; then
    echo "gpusiftfilter's $pad template offers no video/x-raw(memory:NVMM) caps" >&2
    exit 1
  fi
done
meson test -C "$builddir" --no-rebuild --print-errorlogs gpusiftfilter_nvmm
