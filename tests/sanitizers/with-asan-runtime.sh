#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# with-asan-runtime.sh PROGRAM [ARGS...]: runs a system program that is not built with ASan (the
# GStreamer plugin scanner, gst-launch-1.0) so that it can load gpusift's instrumented plugin,
# which needs the ASan runtime loaded first. Memory errors and undefined behaviour in the plugin
# still stop it; leak checking is off, as the program's own never-freed state is not ours.
LD_PRELOAD="$GPUSIFT_ASAN_RUNTIME${LD_PRELOAD:+ $LD_PRELOAD}" \
  ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" \
  exec "$@"
