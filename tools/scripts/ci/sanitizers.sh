#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The sanitizer run of CI (.ci/run calls it after the normal tests): a second build with
# AddressSanitizer and UndefinedBehaviorSanitizer, CUDA off, then every CPU, CLI and GStreamer
# suite under it with leak detection on. Any finding fails the run; each suppression in
# tests/sanitizers/ names its upstream cause.
#
# Left out, and why: the python suites run Debian's /usr/bin/python3 and gst-launch-1.0, which
# are not built with ASan, so they would need libasan preloaded into CPython, whose
# never-freed interpreter state LSan reports by the thousand; the C and C++ they reach
# (gpusift-extract, the plugin, the meta library) run instrumented in the cli and gst suites.
# install and soak: packaging and RSS under ASan's allocator say nothing about memory errors.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
build=${GPUSIFT_SANITIZE_BUILD:-$repo/build-sanitize}
supp=$repo/tests/sanitizers

# No --werror here: the main build enforces warnings, and GCC's -Wmaybe-uninitialized reports
# false positives inside libstdc++'s <regex> when instrumented.
[ -f "$build/build.ninja" ] || meson setup "$build" -Dcuda=disabled \
  -Dintrospection=disabled -Db_sanitize=address,undefined -Db_lundef=false \
  -Dbuildtype=debugoptimized -Doptimization=1
ninja -C "$build"

# fast_unwind_on_malloc=0: Debian's GLib and GStreamer have no frame pointers, and the
# suppressions match frames beyond them.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:fast_unwind_on_malloc=0"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
# System programs that load the instrumented plugin get the ASan runtime preloaded: the plugin
# scanner child that builds the registry, and gst-launch-1.0 in the pipelines/ scripts.
export GST_PLUGIN_SCANNER=$supp/gst-plugin-scanner
export PATH=$supp/bin:$PATH
export GPUSIFT_STOCK_PLUGIN_SCANNER
GPUSIFT_STOCK_PLUGIN_SCANNER=$(pkg-config --variable=pluginscannerdir gstreamer-1.0)/gst-plugin-scanner
export GPUSIFT_ASAN_RUNTIME
GPUSIFT_ASAN_RUNTIME=$(gcc -print-file-name=libasan.so)
# Plain malloc for GLib's slices, so that LSan sees every block it hands out.
export G_SLICE=always-malloc
# gpusift-extract opens videos through OpenCV's GStreamer backend, with the default registry:
# one of the run's own keeps the user's cache out of it.
export GST_REGISTRY_1_0=$build/registry-sanitize.bin
# The main job's fail-fast limits (each child builds a registry of its own) scale with the build.
export GPUSIFT_TEST_TIME_SCALE=4

meson test -C "$build" --print-errorlogs --timeout-multiplier 3 \
  --suite cpu --suite cli --suite gst "$@"
