#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Watches a fleet of cameras through their results on an MQTT broker (keypointmqttsink, e.g.
from pipelines/fleet.sh): subscribes to gpusift/+/results and prints, every few seconds, one row
per camera: frame rate, frames missed (gaps in seq), keypoints, the camera's motion (shift of the
last frame-to-frame matrix, and the cumulative one), tracks alive, and the objects found now with
their tracking ids.

    pipelines/fleet-subscriber.py [--host HOST] [--port PORT] [--topic TOPIC] [--interval S]
                                  [--duration S] [--username U --password P]

Exit status: 0 after --duration (or Ctrl-C); 2 when paho-mqtt is missing or the broker cannot be
reached. Runs under Debian's /usr/bin/python3 with python3-paho-mqtt.
"""

import argparse
import collections
import json
import sys
import threading
import time

PROGRAM = "fleet-subscriber"


class Camera:
    """What one stream said lately."""

    def __init__(self):
        self.arrivals = collections.deque()  # arrival times within the rate window
        self.messages = 0
        self.missed = 0
        self.last_seq = None
        self.last = None

    def add(self, record, now, window):
        seq = record.get("seq")
        if self.last_seq is not None and isinstance(seq, int) and seq > self.last_seq + 1:
            self.missed += seq - self.last_seq - 1
        self.last_seq = seq
        self.last = record
        self.messages += 1
        self.arrivals.append(now)
        while self.arrivals and self.arrivals[0] < now - window:
            self.arrivals.popleft()

    def rate(self, now, window):
        recent = [t for t in self.arrivals if t >= now - window]
        return len(recent) / window


def shift(matrix):
    """The translation part of a 3x3 row-major homography, as "dx,dy"."""
    if not matrix or matrix[8] in (0, None):
        return "-"
    return f"{matrix[2] / matrix[8]:+.1f},{matrix[5] / matrix[8]:+.1f}"


def row(name, camera, now, window):
    r = camera.last or {}
    features = r.get("features") or {}
    motion = r.get("motion")
    tracks = r.get("tracks") or {}
    objects = r.get("objects") or []
    if motion:
        moved = shift(motion["matrix"]) if motion["valid"] else "lost"
        total = shift(motion["cumulative"]) if motion["cumulative_valid"] else "lost"
        inliers = f'{motion["inliers"]}/{motion["matches"]}'
    else:
        moved = total = inliers = "-"
    found = " ".join(f'{o["label"]}#{o["id"]}' for o in objects) or "-"
    return (
        f"{name:<12} {camera.rate(now, window):6.1f} {camera.messages:8d} {camera.missed:6d} "
        f'{features.get("count", "-"):>6} {moved:>14} {total:>16} {inliers:>9} '
        f'{tracks.get("alive", "-"):>6}  {found}'
    )


def main():
    parser = argparse.ArgumentParser(prog=PROGRAM, description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=1883)
    parser.add_argument("--topic", default="gpusift/+/results")
    parser.add_argument("--interval", type=float, default=3.0, help="seconds between tables")
    parser.add_argument("--duration", type=float, default=0, help="seconds to run (0: forever)")
    parser.add_argument("--username")
    parser.add_argument("--password")
    options = parser.parse_args()
    try:
        import paho.mqtt.client as mqtt
    except ImportError:
        print(f"{PROGRAM}: paho-mqtt is missing (Debian: python3-paho-mqtt)", file=sys.stderr)
        return 2

    cameras = collections.OrderedDict()
    lock = threading.Lock()
    window = max(options.interval, 1.0)
    bad = [0]

    def on_connect(client, userdata, flags, rc, properties=None):
        # rc: an int with paho-mqtt 1.x (Debian 12), a ReasonCode equal to it with 2.x
        if rc != 0:
            print(f"{PROGRAM}: the broker refused the connection ({rc})", file=sys.stderr)
        else:
            client.subscribe(options.topic, 0)

    def on_message(client, userdata, message):
        try:
            record = json.loads(message.payload)
            name = record["stream_id"]
        except (ValueError, KeyError, TypeError):
            bad[0] += 1
            return
        with lock:
            cameras.setdefault(name, Camera()).add(record, time.monotonic(), window)

    if hasattr(mqtt, "CallbackAPIVersion"):  # paho-mqtt 2 (Debian 13): 1.x's callbacks deprecated
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, clean_session=True)
    else:
        client = mqtt.Client(clean_session=True)
    if options.username:
        client.username_pw_set(options.username, options.password)
    client.on_connect = on_connect
    client.on_message = on_message
    client.reconnect_delay_set(min_delay=1, max_delay=10)
    try:
        client.connect(options.host, options.port, keepalive=30)
    except OSError as error:
        print(f"{PROGRAM}: cannot reach {options.host}:{options.port}: {error}", file=sys.stderr)
        return 2
    client.loop_start()
    start = time.monotonic()
    try:
        while not options.duration or time.monotonic() - start < options.duration:
            time.sleep(options.interval)
            now = time.monotonic()
            with lock:
                lines = [row(name, camera, now, window) for name, camera in cameras.items()]
                total = sum(c.rate(now, window) for c in cameras.values())
            print(
                f"\n{time.strftime('%H:%M:%S')}  {len(lines)} cameras, {total:.1f} messages/s"
                + (f", {bad[0]} unreadable" if bad[0] else "")
            )
            print(
                f"{'camera':<12} {'fps':>6} {'frames':>8} {'missed':>6} {'kpts':>6} "
                f"{'motion dx,dy':>14} {'cumulative':>16} {'inliers':>9} {'tracks':>6}  objects"
            )
            for line in lines:
                print(line)
            sys.stdout.flush()
    except KeyboardInterrupt:
        pass
    client.loop_stop()
    client.disconnect()
    return 0


if __name__ == "__main__":
    sys.exit(main())
