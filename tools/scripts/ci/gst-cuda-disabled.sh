#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The GStreamer 1.20 configuration (JetPack 6): the CUDA backend without gstreamer-cuda, so no
# GstCudaContext sharing and no CUDA-memory caps. Configures build-nogstcuda with
# -Dgst-cuda=disabled, builds the plugin and the GStreamer suites (and gpusiftfilter_cuda) and
# runs them; without a GPU the element falls back to the CPU backend and the CUDA suite skips.
set -euo pipefail
cd "$(dirname "$0")/../../.."
builddir=${GPUSIFT_NOGSTCUDA_BUILD:-build-nogstcuda}
[ -x /usr/local/cuda/bin/nvcc ] && export PATH=/usr/local/cuda/bin:$PATH
[ -f "$builddir/build.ninja" ] || meson setup "$builddir" -Dgst-cuda=disabled --werror
if ! meson introspect "$builddir" --buildoptions | /usr/bin/python3 -c '
import json, sys
options = {o["name"]: o["value"] for o in json.load(sys.stdin)}
sys.exit(options["gst-cuda"] != "disabled")'; then
  echo "$builddir is not configured with -Dgst-cuda=disabled" >&2
  exit 1
fi
# Only what the suites need: the tools and the CPU and CLI suites are the same as in ./build.
mapfile -t targets < <(meson introspect "$builddir" --tests | /usr/bin/python3 -c '
import json, os, sys
root = sys.argv[1]
for t in json.load(sys.stdin):
    program = t["cmd"][0]
    # Scripts (inspect_test.sh, Python) run from the source tree: not ninja targets.
    if not program.startswith(root + os.sep):
        continue
    if "gpusift:gst" in t["suite"] or t["name"] == "gpusiftfilter_cuda":
        print(os.path.relpath(program, root))
' "$(cd "$builddir" && pwd)")
ninja -C "$builddir" gst/libgstgpusift.so "${targets[@]}"
grep -q 'GPUSIFT_HAVE_GST_CUDA' "$builddir/build.ninja" && {
  echo "$builddir defines GPUSIFT_HAVE_GST_CUDA although gst-cuda is disabled" >&2
  exit 1
}
if nm -D --undefined-only "$builddir/gst/libgstgpusift.so" | grep -q 'gst_cuda'; then
  echo "$builddir's plugin imports gst_cuda_* symbols" >&2
  exit 1
fi
meson test -C "$builddir" --no-rebuild --print-errorlogs --suite gst
meson test -C "$builddir" --no-rebuild --print-errorlogs gpusiftfilter_cuda
