#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Benchmark of the results sinks (not a test): what keypointjsonsink and keypointmqttsink cost
per frame in the streaming thread, and how many messages per second N pipelines sustain into a
local mosquitto.

1. Cost per frame: frames of a real pipeline (videotestsrc pattern=pinwheel, gpusiftfilter and
   keypointtracker on the CPU backend) are captured once with their metas, then pushed again and
   again through appsrc into each sink; the time per frame minus fakesink's is the sink's cost
   (serialise, write or queue). Median of --repeats runs.
2. Throughput: --pipelines gst-launch-1.0 processes publish as fast as they can to a mosquitto
   started here; a subscriber (mosquitto_sub) counts what arrives. Two kinds: the sink alone
   (videotestsrc ! keypointmqttsink, small messages) and the full CPU pipeline at 160x120.

    source pipelines/env.sh
    tools/scripts/results-bench.py [--pipelines 8] [--frames 20000] [--full-frames 600]
                                   [--cost-frames 2000] [--qos 0] [--repeats 3]

Needs /usr/bin/python3 with python3-gi and python3-gst-1.0, mosquitto (/usr/sbin/mosquitto) and
mosquitto-clients (mosquitto_sub).
"""

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

# Tiny frames make many short parallel regions, where spinning OpenMP workers of eight processes
# only take the cores from each other (as tools/scripts/soak.sh); children inherit it.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import gi  # noqa: E402

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
from gi.repository import Gst, GstApp  # noqa: E402,F401 (GstApp: appsink's methods)


COST_SIZE = (640, 480)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    def __init__(self):
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="results-bench-")
        config = os.path.join(self.dir, "mosquitto.conf")
        with open(config, "w", encoding="utf-8") as f:
            f.write(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
                    "max_queued_messages 1000000\n")
        binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        self.process = subprocess.Popen([binary, "-c", config], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not start")

    def close(self):
        self.process.terminate()
        self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


class Counter:
    """Messages arriving on gpusift/+/results, through mosquitto_sub (C, so that the subscriber
    is not what limits the rate; subscribed with QoS 1 so that the broker queues for it rather
    than drop): count, bytes, first and last arrival."""

    def __init__(self, port):
        self.count = 0
        self.bytes = 0
        self.first = self.last = None
        self.process = subprocess.Popen(
            [shutil.which("mosquitto_sub") or "/usr/bin/mosquitto_sub", "-h", "127.0.0.1",
             "-p", str(port), "-t", "gpusift/+/results", "-q", "1", "-F", "%U %l"],
            stdout=subprocess.PIPE, text=True)
        self.reader = threading.Thread(target=self.read)
        self.reader.start()
        time.sleep(0.5)  # subscribed

    def read(self):
        for line in self.process.stdout:
            stamp, length = line.split()
            self.count += 1
            self.bytes += int(length)
            self.first = self.first or float(stamp)
            self.last = float(stamp)

    def close(self, expected, timeout=60):
        deadline = time.monotonic() + timeout
        while self.count < expected and time.monotonic() < deadline:
            time.sleep(0.1)
        self.process.terminate()
        self.reader.join()


def capture_frames(n):
    """n buffers of a real CPU pipeline, with their keypoints and tracks metas."""
    pipeline = Gst.parse_launch(
        f"videotestsrc num-buffers={n} pattern=pinwheel ! "
        f"video/x-raw,format=GRAY8,width={COST_SIZE[0]},height={COST_SIZE[1]},framerate=30/1 ! "
        "gpusiftfilter backend=cpu ! keypointtracker backend=cpu ! appsink name=sink sync=false"
    )
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    frames = []
    while True:
        sample = sink.try_pull_sample(60 * Gst.SECOND)
        if sample is None:
            break
        frames.append(sample.get_buffer())
    pipeline.set_state(Gst.State.NULL)
    return frames


def time_sink(frames, sink, count):
    """Wall-clock and CPU seconds (all the process's threads: the streaming thread, the MQTT
    client's, this one's pushes) until count frames pushed through appsrc ! sink are rendered:
    until EOS reaches the sink's pad (appsrc blocks on a short queue, so every frame before it has
    been rendered), which leaves out what keypointmqttsink's EOS then waits for the network. CPU
    time is what a busy machine does not inflate."""
    caps = f"video/x-raw,format=GRAY8,width={COST_SIZE[0]},height={COST_SIZE[1]},framerate=30/1"
    pipeline = Gst.parse_launch(
        f"appsrc name=src format=time block=true max-bytes={4 * COST_SIZE[0] * COST_SIZE[1]} "
        f'caps="{caps}" ! {sink}'
    )
    src = pipeline.get_by_name("src")
    rendered = []

    def on_event(pad, info):
        if info.get_event().type == Gst.EventType.EOS:
            rendered.append((time.perf_counter(), time.process_time()))
        return Gst.PadProbeReturn.OK

    sink_pad = pipeline.get_by_name("sink").get_static_pad("sink")
    sink_pad.add_probe(Gst.PadProbeType.EVENT_DOWNSTREAM, on_event)
    copies = []
    for i in range(count):
        buffer = frames[i % len(frames)].copy()
        buffer.pts = i * Gst.SECOND // 30
        copies.append(buffer)
    pipeline.set_state(Gst.State.PLAYING)
    start = (time.perf_counter(), time.process_time())
    for buffer in copies:
        src.emit("push-buffer", buffer)
    src.emit("end-of-stream")
    message = pipeline.get_bus().timed_pop_filtered(
        300 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR
    )
    pipeline.set_state(Gst.State.NULL)
    if message is None or message.type != Gst.MessageType.EOS:
        raise RuntimeError(f"{sink}: {message.parse_error() if message else 'timeout'}")
    return rendered[0][0] - start[0], rendered[0][1] - start[1]


def cost_per_frame(options, port):
    frames = capture_frames(30)
    print(f"cost per frame: {len(frames)} frames of {COST_SIZE[0]}x{COST_SIZE[1]} captured, "
          f"pushed {options.cost_frames} times per run, median of {options.repeats}")
    lines = tempfile.NamedTemporaryFile(suffix=".jsonl")
    mqtt = f"keypointmqttsink name=sink port={port} queue-size=100000 flush-timeout=0"
    sinks = [
        ("fakesink", "fakesink name=sink sync=false", None),
        ("keypointjsonsink", f"keypointjsonsink name=sink location={lines.name}", lines.name),
        ("keypointjsonsink include-tracks=true", f"keypointjsonsink name=sink location={lines.name}"
         " include-tracks=true", lines.name),
        ("keypointjsonsink include-tracks+keypoints", f"keypointjsonsink name=sink "
         f"location={lines.name} include-tracks=true include-keypoints=true", lines.name),
        ("keypointmqttsink qos=0", mqtt, None),
        ("keypointmqttsink qos=1", mqtt + " qos=1", None),
        ("keypointmqttsink include-tracks=true", mqtt + " include-tracks=true", None),
    ]
    baseline = None
    print(f"  {'sink':<40} {'wall us/frame':>14} {'CPU us/frame':>13} {'added CPU':>10}")
    for name, sink, path in sinks:
        runs = [time_sink(frames, sink, options.cost_frames) for _ in range(options.repeats)]
        wall = statistics.median(r[0] for r in runs) / options.cost_frames * 1e6
        cpu = statistics.median(r[1] for r in runs) / options.cost_frames * 1e6
        size = f", {os.path.getsize(path) / options.cost_frames:.0f} bytes a line" if path else ""
        baseline = cpu if baseline is None else baseline
        print(f"  {name:<40} {wall:14.1f} {cpu:13.1f} {cpu - baseline:+10.1f}{size}")
    with open(lines.name, encoding="utf-8") as f:
        first = json.loads(f.readline())
    print(f"  ({first['features']['count']} keypoints a frame, tracks of every one)")
    lines.close()


STATS = re.compile(r"keypointmqttsink, stream-id=\(string\)(\S+), frames=\(guint64\)(\d+), "
                   r"sent=\(guint64\)(\d+), dropped=\(guint64\)(\d+)")


def throughput(options, port, name, source, frames):
    counter = Counter(port)
    processes = []
    start = time.monotonic()
    for i in range(options.pipelines):
        command = (["gst-launch-1.0", "-m"] + source.split() +
                   ["!", "keypointmqttsink", f"port={port}", f"stream-id=bench{i}",
                    f"qos={options.qos}", f"queue-size={frames}", "stats-interval=0",
                    "flush-timeout=30000"])
        processes.append(subprocess.Popen(command, stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL, text=True))
    sent = dropped = 0
    for process in processes:
        out, _ = process.communicate(timeout=600)
        for match in STATS.finditer(out):
            sent += int(match.group(3))
            dropped += int(match.group(4))
    wall = time.monotonic() - start
    total = options.pipelines * frames
    counter.close(sent)
    count, size = counter.count, counter.bytes
    window = (counter.last - counter.first) if count > 1 else float("nan")
    print(f"  {name}: {options.pipelines} pipelines x {frames} frames, qos {options.qos}: "
          f"sent {sent}, dropped {dropped}, received {count} of {total}; "
          f"{count / window:.0f} messages/s received over {window:.1f} s "
          f"({sent / wall:.0f}/s sent over the processes' {wall:.1f} s), "
          f"{size / max(count, 1):.0f} bytes a message")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pipelines", type=int, default=8)
    parser.add_argument("--frames", type=int, default=20000,
                        help="frames per pipeline, the sink alone")
    parser.add_argument("--full-frames", type=int, default=600,
                        help="frames per pipeline, the full CPU pipeline")
    parser.add_argument("--cost-frames", type=int, default=2000)
    parser.add_argument("--qos", type=int, default=0, choices=(0, 1))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-cost", action="store_true")
    parser.add_argument("--skip-throughput", action="store_true")
    options = parser.parse_args()
    Gst.init(None)
    broker = Broker()
    try:
        if not options.skip_cost:
            cost_per_frame(options, broker.port)
        if not options.skip_throughput:
            print("throughput into one local mosquitto:")
            throughput(options, broker.port, "sink alone (videotestsrc 64x48, no metas)",
                       f"videotestsrc num-buffers={options.frames} ! "
                       "video/x-raw,width=64,height=48", options.frames)
            throughput(options, broker.port,
                       "full CPU pipeline (160x120, gpusiftfilter ! keypointtracker)",
                       f"videotestsrc num-buffers={options.full_frames} pattern=ball ! "
                       "video/x-raw,width=160,height=120 ! gpusiftfilter backend=cpu ! "
                       "keypointtracker backend=cpu", options.full_frames)
    finally:
        broker.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
