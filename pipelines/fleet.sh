#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Shows: a fleet of cameras publishing their results to one MQTT broker. Starts N camera
# pipelines, each its own gst-launch-1.0 process with a synthetic live source and its own
# stream-id (cam0, cam1, ...): gpusiftfilter ! keypointtracker ! keypointmqttsink. Odd cameras
# film coffee.png (tests/data, from tools/scripts/fetch-test-images.sh) and look for the cup in it
# with keypointmatcher, so that objects show up too; even ones film a scrolling test pattern (a
# panning camera). Watch them with pipelines/fleet-subscriber.py.
#   pipelines/fleet.sh [-n CAMERAS] [--host HOST] [--port PORT] [--seconds S] [--fps F]
#                      [--size WxH] [--backend auto|cpu|cuda] [--start-broker]
# --start-broker runs a mosquitto of its own on 127.0.0.1:PORT for the fleet's lifetime.
# Ctrl-C stops every camera (and that broker).
set -euo pipefail
source "$(dirname "$0")/env.sh"
cameras=4 host=127.0.0.1 port=1883 seconds=60 fps=15 size=320x240 backend=auto start_broker=0
while [ $# -gt 0 ]; do
  case $1 in
    -n) cameras=$2; shift 2 ;;
    --host) host=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --fps) fps=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --backend) backend=$2; shift 2 ;;
    --start-broker) start_broker=1; shift ;;
    -h | --help) sed -n '3,13p' "$0"; exit 0 ;;
    *) echo "$(basename "$0"): unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $cameras =~ ^[1-9][0-9]*$ && $seconds =~ ^[1-9][0-9]*$ && $fps =~ ^[1-9][0-9]*$ &&
  $size =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] || {
  echo "$(basename "$0"): -n, --seconds and --fps take positive integers, --size WxH" >&2
  exit 2
}
# Not require_elements: gst-inspect-1.0 --exists also wants a plugin version of at least
# GStreamer's own, which gpusift's 0.1.0 is not.
for element in gpusiftfilter keypointtracker keypointmatcher keypointmqttsink videotestsrc \
  imagefreeze pngenc videocrop; do
  gst-inspect-1.0 "$element" > /dev/null 2>&1 || {
    echo "$(basename "$0"): GStreamer element $element not found" \
      "(GST_PLUGIN_PATH=$GST_PLUGIN_PATH)" >&2
    exit 1
  }
done
width=${size%x*} height=${size#*x}
frames=$((seconds * fps))
work=$(mktemp -d)
pids=()
stop() {
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
  wait 2> /dev/null || true
  rm -rf "$work"
}
trap stop EXIT INT TERM

if [ "$start_broker" = 1 ]; then
  broker=$(command -v mosquitto || echo /usr/sbin/mosquitto)
  [ -x "$broker" ] || {
    echo "$(basename "$0"): mosquitto not found (Debian: mosquitto)" >&2
    exit 2
  }
  printf 'listener %s %s\nallow_anonymous true\npersistence false\n' "$port" "$host" \
    > "$work/mosquitto.conf"
  "$broker" -c "$work/mosquitto.conf" > "$work/mosquitto.log" 2>&1 &
  pids+=($!)
  sleep 0.5
fi

# The object: a crop of coffee.png around the cup, made once.
image=$here/tests/data/coffee.png
objects=0
if [ -f "$image" ]; then
  gst-launch-1.0 -q filesrc location="$image" ! decodebin ! videocrop left=150 top=80 right=290 \
    bottom=200 ! videoconvert ! pngenc ! filesink location="$work/cup.png" && objects=1
fi

caps="video/x-raw,width=$width,height=$height,framerate=$fps/1"
# The window of coffee.png (600x400) of the size asked for around the cup, at its own scale; the
# whole image scaled when the size is larger.
left=$((230 - width / 2)) top=$((140 - height / 2))
left=$((left < 0 ? 0 : left > 600 - width ? 600 - width : left))
top=$((top < 0 ? 0 : top > 400 - height ? 400 - height : top))
window=(videocrop left="$left" top="$top" right=$((600 - width - left))
  bottom=$((400 - height - top)))
[ "$width" -le 600 ] && [ "$height" -le 400 ] || window=(identity)
patterns=(pinwheel circular smpte spokes)
for ((i = 0; i < cameras; i++)); do
  if [ $objects = 1 ] && [ $((i % 2)) = 1 ]; then
    source=(filesrc location="$image" ! decodebin ! "${window[@]}" ! videoconvert ! videoscale !
      "video/x-raw,width=$width,height=$height" ! imagefreeze is-live=true num-buffers="$frames" !
      "$caps" ! gpusiftfilter backend="$backend" ! keypointtracker backend="$backend" !
      keypointmatcher backend="$backend" label=cup reference="$work/cup.png")
  else
    # A test pattern scrolling left: the camera pans.
    source=(videotestsrc is-live=true num-buffers="$frames" pattern="${patterns[$((i / 2 % 4))]}"
      horizontal-speed=2 ! "$caps" ! gpusiftfilter backend="$backend" !
      keypointtracker backend="$backend")
  fi
  gst-launch-1.0 -q "${source[@]}" ! keypointmqttsink host="$host" port="$port" \
    stream-id="cam$i" &
  pids+=($!)
  echo "cam$i: pid $!, topic gpusift/cam$i/results"
done
echo "$cameras cameras publishing to $host:$port for ${seconds} s; watch them with:"
echo "  pipelines/fleet-subscriber.py --host $host --port $port"
# The cameras end by themselves after their frames; the broker with them.
for ((i = ${#pids[@]} - cameras; i < ${#pids[@]}; i++)); do wait "${pids[$i]}" || true; done
