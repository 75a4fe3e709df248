#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# One-time set-up on Debian 12: build dependencies, the real test images, and a configured,
# built tree in ./build (the CUDA backend is built when nvcc is found, e.g. /usr/local/cuda/bin).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends \
  g++ meson ninja-build pkg-config clang-format netpbm \
  libopencv-dev libgtest-dev libgmock-dev \
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev \
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
  gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav \
  gobject-introspection libgirepository1.0-dev gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0 \
  python3-gi python3-gst-1.0 python3-numpy clang-16 python3-pip \
  libjson-glib-dev libmosquitto-dev mosquitto-clients openssl python3-jsonschema \
  python3-paho-mqtt
# The broker is for the tests, which start their own (and skip only without this binary): its
# service is neither started (denied by a policy-rc.d for this install) nor enabled.
if [ ! -x /usr/sbin/mosquitto ]; then
  policy=/usr/sbin/policy-rc.d added=""
  if [ ! -e $policy ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee $policy > /dev/null
    $sudo chmod +x $policy
    added=1
    trap '$sudo rm -f $policy' EXIT
  fi
  $sudo apt-get install -y -q --no-install-recommends mosquitto
  [ -z "$added" ] || { $sudo rm -f $policy; trap - EXIT; }
  $sudo systemctl disable mosquitto > /dev/null 2>&1 || true
fi
[ -x /usr/sbin/mosquitto ] || { echo "setup.sh: mosquitto did not install" >&2; exit 1; }
[ -x /usr/local/cuda/bin/nvcc ] && export PATH=/usr/local/cuda/bin:$PATH
tools/scripts/fetch-test-images.sh
# The suites, tools and results sinks are required, not "auto": a missing test dependency fails
# setup instead of leaving its suites out of the test command.
[ -f build/build.ninja ] || meson setup build -Dtests=enabled -Dtools=enabled \
  -Dresults-json=enabled -Dmqtt=enabled ${GPUSIFT_MESON_ARGS:-}
ninja -C build
