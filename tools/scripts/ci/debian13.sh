#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Debian 13 (trixie) stage of CI (issue 39): the project built with --werror and its whole
# test suite run on a newer stack than the host's Debian 12: GStreamer 1.26, GCC 14, OpenCV 4.10,
# Python 3.13, numpy 2.
#
# debootstrap makes a minimal trixie root in build-debian13/root (git-ignored, inside the tree,
# so CI keeps nothing outside its own folders), apt installs the trixie names of setup.sh's
# packages, the source tree is bind-mounted at /src, and build-debian13/build is configured,
# built and tested there. It also fails when trixie's gstreamer1.0-plugins-bad lacks the
# analytics overlay objectdetectionoverlay (plugin analyticsoverlay), which the analytics tests
# need. CPU backend only by default: the CUDA backend's kernels and suites would more than double
# the build, more than CI's hour leaves; GPUSIFT_DEBIAN13_CUDA=/usr/local/cuda builds it too.
#
# The script runs in a mount namespace of its own (unshare): its mounts are seen by no other
# process and vanish when it ends, even when killed, and it never unmounts anything, so that
# another tree bind-mounted into the same root by hand is left alone. Reruns reuse the root
# (delete it to refresh; a changed package list is installed into it) and the build.
#
# --root-only: make the root and its packages, nothing more (.ci/run does that in the background
# while other stages build).
#
# Environment: GPUSIFT_DEBIAN13_DIR (default build-debian13, inside the tree: logs and build),
# GPUSIFT_DEBIAN13_ROOT (default $GPUSIFT_DEBIAN13_DIR/root; an existing root elsewhere is used
# as it is, never deleted), GPUSIFT_DEBIAN_MIRROR (default http://deb.debian.org),
# GPUSIFT_JOBS (default: all cores), GPUSIFT_DEBIAN13_CUDA (default empty: -Dcuda=disabled).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
if [ "$(id -u)" -ne 0 ]; then
  keep=GPUSIFT_DEBIAN13_DIR,GPUSIFT_DEBIAN13_ROOT,GPUSIFT_DEBIAN13_CUDA
  exec sudo --preserve-env="$keep,GPUSIFT_DEBIAN_MIRROR,GPUSIFT_JOBS" \
    "$repo/tools/scripts/ci/debian13.sh" "$@"
fi
if [ -z "${GPUSIFT_DEBIAN13_NS:-}" ]; then
  exec env GPUSIFT_DEBIAN13_NS=1 unshare --mount --propagation private \
    "$repo/tools/scripts/ci/debian13.sh" "$@"
fi
cd "$repo"
t0=$SECONDS
dir=${GPUSIFT_DEBIAN13_DIR:-$repo/build-debian13}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
case "$dir/" in
"$repo"/*) ;;
*)
  echo "debian13: $dir is not inside $repo, so the root would not see it under /src" >&2
  exit 1
  ;;
esac
root=${GPUSIFT_DEBIAN13_ROOT:-$dir/root}
mirror=${GPUSIFT_DEBIAN_MIRROR:-http://deb.debian.org}
cuda=${GPUSIFT_DEBIAN13_CUDA:-}
build=/src/${dir#"$repo"/}/build

# setup.sh's packages as trixie names them, less the host-only tools (clang-format, clang, pip).
# mosquitto's service is not started: the root's policy-rc.d denies it (the tests start their own).
packages=(
  g++ meson ninja-build pkg-config netpbm
  libopencv-dev libgtest-dev libgmock-dev
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav
  gobject-introspection libgirepository1.0-dev gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  python3-gi python3-gst-1.0 python3-numpy
  libjson-glib-dev libmosquitto-dev mosquitto-clients openssl python3-jsonschema python3-paho-mqtt
  mosquitto
)

bind() { # bind --bind|--rbind SOURCE TARGET (--rbind: with the mounts below SOURCE)
  mkdir -p "$root$3"
  mount "$1" "$2" "$root$3"
}
in_root() { # in_root COMMAND...: a clean environment, root's HOME inside the root
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=${cuda:+/usr/local/cuda/bin:}/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    DEBIAN_FRONTEND=noninteractive PYTHONDONTWRITEBYTECODE=1 "$@"
}

# 1. The root: debootstrap's minimal variant. A root of ours left half-made is made again; a root
# named by GPUSIFT_DEBIAN13_ROOT, or one with anything mounted below it, is never deleted.
ts=$SECONDS
if [ ! -f "$root/.gpusift-bootstrapped" ]; then
  if [ -e "$root" ]; then
    if [ "$root" != "$dir/root" ] ||
      findmnt -rn -o TARGET | awk -v r="$root/" 'index($0, r) == 1 {f = 1} END {exit !f}'; then
      echo "debian13: $root is not a finished root; delete it (nothing mounted below) first" >&2
      exit 1
    fi
    rm -rf --one-file-system "$root"
  fi
  command -v debootstrap >/dev/null ||
    apt-get install -y -q --no-install-recommends debootstrap >/dev/null
  debootstrap --variant=minbase trixie "$root" "$mirror/debian" >"$dir/debootstrap.log" 2>&1 || {
    tail -n 20 "$dir/debootstrap.log" >&2
    echo "debian13: debootstrap failed (log: $dir/debootstrap.log)" >&2
    exit 1
  }
  cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror/debian trixie main
deb $mirror/debian trixie-updates main
deb $mirror/debian-security trixie-security main
EOF
  # Speed only: no recommends (as setup.sh), no fsync per file, no documentation or
  # translations unpacked, no service started by a maintainer script.
  echo 'APT::Install-Recommends "false";' >"$root/etc/apt/apt.conf.d/90gpusift"
  printf '%s\n' force-unsafe-io 'path-exclude=/usr/share/doc/*' 'path-exclude=/usr/share/man/*' \
    'path-exclude=/usr/share/info/*' 'path-exclude=/usr/share/locale/*' \
    'path-include=/usr/share/locale/locale.alias' >"$root/etc/dpkg/dpkg.cfg.d/90gpusift"
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
  touch "$root/.gpusift-bootstrapped"
fi
bootstrap_s=$((SECONDS - ts))

mount -t proc proc "$root/proc"
bind --rbind /dev /dev
bind --rbind /sys /sys

# 2. The packages, installed again only when the list changed.
ti=$SECONDS
if [ "$(cat "$root/.gpusift-packages" 2>/dev/null)" != "${packages[*]}" ]; then
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  in_root apt-get update -q >/dev/null
  in_root apt-get install -y -q "${packages[@]}" >"$dir/apt.log" 2>&1 || {
    tail -n 30 "$dir/apt.log" >&2
    echo "debian13: apt-get install failed (log: $dir/apt.log)" >&2
    exit 1
  }
  in_root apt-get clean
  echo "${packages[*]}" >"$root/.gpusift-packages"
fi
install_s=$((SECONDS - ti))
echo "debian13: root $root (debootstrap $bootstrap_s s, packages $install_s s)"
[ "${1:-}" = --root-only ] && exit 0

# 3. The source tree with the test images, and CUDA when asked for.
tools/scripts/fetch-test-images.sh
bind --bind "$repo" /src
if [ -n "$cuda" ]; then
  bind --bind "$(readlink -f "$cuda")" /usr/local/cuda
  mount -o remount,bind,ro "$root/usr/local/cuda"
fi
versions="GStreamer $(in_root pkg-config --modversion gstreamer-1.0), $(in_root g++ --version |
  head -n 1), OpenCV $(in_root pkg-config --modversion opencv4), $(in_root python3 --version),"
versions+=" numpy $(in_root python3 -c 'import numpy; print(numpy.__version__)'),"
versions+=" meson $(in_root meson --version)"
echo "debian13: $versions"

# 4. objectdetectionoverlay: present, and it runs.
if ! overlay=$(in_root gst-inspect-1.0 objectdetectionoverlay 2>&1) ||
  ! in_root gst-launch-1.0 -q videotestsrc num-buffers=2 ! videoconvert ! objectdetectionoverlay \
    ! fakesink >/dev/null; then
  echo "debian13: objectdetectionoverlay is missing or fails: $overlay" >&2
  exit 1
fi
overlay=$(awk '/^Plugin Details/ {p = 1} p && $1 == "Name" {n = $2} p && $1 == "Version" {v = $2}
  p && $1 == "Filename" {f = $2} END {printf "plugin %s %s, %s", n, v, f}' <<<"$overlay")
echo "debian13: objectdetectionoverlay present and running: $overlay"

# 5. Configure, build and test inside the root.
tb=$SECONDS
# As setup.sh, and the analytics results (GStreamer 1.24+) required: only this stage has them.
setup_args=(-Dtests=enabled -Dtools=enabled -Dresults-json=enabled -Dmqtt=enabled
  -Danalytics=enabled --werror)
if [ -n "$cuda" ]; then setup_args+=(-Dcuda=enabled); else setup_args+=(-Dcuda=disabled); fi
in_root bash -euo pipefail -c '
  cd /src
  build=$1 jobs=$2
  shift 2
  if [ -f "$build/build.ninja" ]; then
    meson setup --reconfigure "$build" "$@" >/dev/null
  else
    rm -rf "$build"
    meson setup "$build" "$@" >/dev/null
  fi
  ninja -C "$build" -k 0 -j "$jobs"' bash "$build" "${GPUSIFT_JOBS:-$(nproc)}" "${setup_args[@]}"
build_s=$((SECONDS - tb))
tt=$SECONDS
rc=0
in_root meson test -C "$build" --no-rebuild --print-errorlogs || rc=$?
tests_s=$((SECONDS - tt))

echo "debian13: $versions, CUDA backend $([ -n "$cuda" ] && echo built || echo disabled)"
echo "debian13: objectdetectionoverlay: $overlay"
echo "debian13: tests: $(sed -n '/^Ok:/,/^Timeout:/p' "$dir/build/meson-logs/testlog.txt" |
  tr -s ' ' | paste -sd' ')"
echo "debian13: debootstrap $bootstrap_s s, packages $install_s s, build $build_s s," \
  "tests $tests_s s, total $((SECONDS - t0)) s"
exit "$rc"
