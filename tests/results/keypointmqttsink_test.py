# SPDX-License-Identifier: LGPL-2.1-or-later
"""keypointmqttsink against a real broker: Debian's mosquitto, started by the test on a free
loopback port from a generated configuration. A subscriber (paho-mqtt) checks every message
against the JSON Schema; the broker is stopped and restarted mid-stream (no crash, no stall,
sent + dropped = frames, EOS in time); a frozen (slow) broker never holds the stream and its
backlog is bounded; a broker that comes up after the pipeline; a wrong password is a clear error;
TLS with the right and a wrong CA. Exits 77 (skipped) only when mosquitto is not installed."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import unittest

import results_test_support as support
from results_test_support import Gst

if support.mosquitto_binary() is None:
    print("skipped: mosquitto is not installed (Debian: mosquitto)")
    sys.exit(support.SKIPPED)

import paho.mqtt.client as mqtt  # noqa: E402 (Debian: python3-paho-mqtt)

TOPICS = "gpusift/+/results"


class Subscriber:
    """Every message on gpusift/+/results, subscribed again after each reconnection."""

    def __init__(self, port, username=None, password=None):
        self.messages = []
        self.lock = threading.Lock()
        self.subscribed = threading.Event()
        if hasattr(mqtt, "CallbackAPIVersion"):
            # paho-mqtt 2 (Debian 13) deprecates the callbacks of 1.x (Debian 12); the ones
            # here take either.
            self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, clean_session=True)
        else:
            self.client = mqtt.Client(clean_session=True)
        if username:
            self.client.username_pw_set(username, password)
        self.client.on_connect = lambda client, *args: client.subscribe(TOPICS, 1)
        self.client.on_subscribe = lambda *args: self.subscribed.set()
        self.client.on_message = self._on_message
        self.client.reconnect_delay_set(min_delay=1, max_delay=1)
        self.client.connect("127.0.0.1", port, keepalive=5)
        self.client.loop_start()
        assert self.subscribed.wait(10), "the subscriber could not subscribe"

    def _on_message(self, client, userdata, message):
        with self.lock:
            self.messages.append((message.topic, message.payload))

    def wait_for(self, count, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.messages) >= count:
                    break
            time.sleep(0.05)
        with self.lock:
            return list(self.messages)

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()


def sink_pipeline(port, frames, live=False, extra=""):
    return Gst.parse_launch(
        f"videotestsrc num-buffers={frames} pattern=ball is-live={str(live).lower()} ! "
        "video/x-raw,width=160,height=120,framerate=30/1 ! gpusiftfilter backend=cpu ! "
        "keypointtracker backend=cpu ! "
        f"keypointmqttsink name=sink host=127.0.0.1 port={port} {extra}"
    )


class Run:
    """A pipeline played to its end on a thread of the test, with its bus messages."""

    def __init__(self, pipeline, timeout=60):
        self.pipeline = pipeline
        self.stats = []  # keypointmqttsink element messages, as dicts
        self.warnings = []
        self.end = None
        self.timeout = timeout
        self.thread = threading.Thread(target=self._run)

    def start(self):
        self.started = time.monotonic()
        self.thread.start()
        return self

    def _run(self):
        bus = self.pipeline.get_bus()
        self.pipeline.set_state(Gst.State.PLAYING)
        kinds = (
            Gst.MessageType.EOS
            | Gst.MessageType.ERROR
            | Gst.MessageType.ELEMENT
            | Gst.MessageType.WARNING
        )
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            message = bus.timed_pop_filtered(100 * Gst.MSECOND, kinds)
            if message is None:
                continue
            if message.type == Gst.MessageType.WARNING:
                self.warnings.append(message.parse_warning()[0].message)
            elif message.type == Gst.MessageType.ELEMENT:
                s = message.get_structure()
                if s.get_name() == "keypointmqttsink":
                    self.stats.append({s.nth_field_name(i): s.get_value(s.nth_field_name(i))
                                       for i in range(s.n_fields())})
            else:
                self.end = message
                break
        self.seconds = time.monotonic() - self.started

    def join(self):
        self.thread.join(self.timeout + 30)
        self.pipeline.set_state(Gst.State.NULL)
        return self


class MqttSinkTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.validator = support.schema_validator()

    def assert_valid_messages(self, messages, stream_id):
        records = []
        for topic, payload in messages:
            self.assertEqual(topic, f"gpusift/{stream_id}/results")
            record = json.loads(payload)
            errors = [e.message for e in self.validator.iter_errors(record)]
            self.assertEqual(errors, [], record)
            self.assertEqual(record["stream_id"], stream_id)
            records.append(record)
        return records

    def assert_final_stats(self, run, frames):
        self.assertIsNotNone(run.end, f"no EOS within {run.timeout} s")
        self.assertEqual(run.end.type, Gst.MessageType.EOS, run.end.parse_error()
                         if run.end.type == Gst.MessageType.ERROR else None)
        final = [s for s in run.stats if s["eos"]]
        self.assertEqual(len(final), 1, run.stats)
        final = final[0]
        self.assertEqual(final["frames"], frames)
        self.assertEqual(final["sent"] + final["dropped"], frames, final)
        self.assertEqual(final["queued"] + final["in-flight"], 0, final)
        return final

    def test_every_frame_arrives_and_validates(self):
        for qos in (0, 1):
            with self.subTest(qos=qos), support.Broker() as broker:
                subscriber = Subscriber(broker.port)
                frames = 30
                stream = f"cam-q{qos}"
                run = Run(sink_pipeline(broker.port, frames,
                                        extra=f"stream-id={stream} qos={qos} include-tracks=true"))
                run.start().join()
                final = self.assert_final_stats(run, frames)
                self.assertEqual(final["sent"], frames)
                self.assertEqual(final["dropped"], 0)
                self.assertEqual(final["reconnects"], 0)
                self.assertEqual(run.warnings, [])
                records = self.assert_valid_messages(subscriber.wait_for(frames), stream)
                subscriber.close()
                self.assertEqual([r["seq"] for r in records], list(range(frames)))
                self.assertEqual([r["pts"] for r in records],
                                 [i * Gst.SECOND // 30 for i in range(frames)])
                for r in records:
                    self.assertEqual((r["width"], r["height"]), (160, 120))
                    self.assertEqual(len(r["tracks"]["items"]), r["features"]["count"])
                stats = run.pipeline.get_by_name("sink").get_property("stats")
                self.assertEqual(stats.get_value("sent"), frames)

    def test_broker_stopped_and_restarted_mid_stream(self):
        for qos in (0, 1):
            with self.subTest(qos=qos), support.Broker() as broker:
                subscriber = Subscriber(broker.port)
                # 8 s live: the broker is back after 2.4 s, and libmosquitto's reconnection
                # delay grows 1, 4, 9 s, so the sink may be away until about 5.4 s; the frames
                # after that are what the subscriber must see (with 5 s it sometimes saw none).
                frames = 240
                stream = f"restart-q{qos}"
                run = Run(
                    sink_pipeline(
                        broker.port, frames, live=True,
                        extra=f"stream-id={stream} qos={qos} queue-size=10 stats-interval=250 "
                        "flush-timeout=4000"),
                    timeout=40)
                sink = run.pipeline.get_by_name("sink")
                run.start()
                # Stop the broker once messages flow, for 2 s: 60 frames, past the queue's 10.
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline and run.end is None:
                    if sink.get_property("stats").get_value("sent") >= 10:
                        break
                    time.sleep(0.05)
                before = len(subscriber.wait_for(0, 0))
                broker.stop()
                time.sleep(2.0)
                broker.start()
                run.join()
                final = self.assert_final_stats(run, frames)
                # Live: the whole stream plus at most the flush, never a stall.
                self.assertLess(run.seconds, frames / 30 + 4 + 5)
                self.assertGreater(final["dropped"], 0, final)
                self.assertGreater(final["sent"], 10, final)
                self.assertGreaterEqual(final["reconnects"], 1, final)
                self.assertTrue(any("Lost the connection" in w for w in run.warnings),
                                run.warnings)
                periodic = [s for s in run.stats if not s["eos"]]
                self.assertGreater(len(periodic), 3)
                self.assertTrue(any(not s["connected"] for s in periodic), periodic)
                # Messages came again after the restart, and every one of them validates.
                messages = subscriber.wait_for(before + 1, timeout=10)
                subscriber.close()
                records = self.assert_valid_messages(messages, stream)
                self.assertGreater(len(records), before)
                seqs = [r["seq"] for r in records]
                self.assertEqual(seqs, sorted(set(seqs)) if qos == 0 else seqs)
                self.assertGreater(max(seqs), 60)

    def test_slow_broker_never_blocks_the_stream(self):
        # A frozen broker keeps its connections but reads and acknowledges nothing: QoS 1
        # messages stay unconfirmed, the sink's hand-over (32) and queue (10) fill, and from then
        # on each frame drops the oldest message while the stream keeps its pace.
        with support.Broker() as broker:
            subscriber = Subscriber(broker.port)
            frames = 150  # 5 s live
            stream = "slow"
            run = Run(
                sink_pipeline(
                    broker.port, frames, live=True,
                    extra=f"stream-id={stream} qos=1 queue-size=10 stats-interval=100 "
                    "flush-timeout=4000"),
                timeout=40)
            sink = run.pipeline.get_by_name("sink")
            run.start()
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and run.end is None:
                if sink.get_property("stats").get_value("sent") >= 10:
                    break
                time.sleep(0.05)
            before = sink.get_property("stats")
            broker.freeze()
            try:
                time.sleep(2.0)
                during = sink.get_property("stats")
            finally:
                broker.thaw()
            run.join()
            # The stream went on at its pace while the broker took nothing: 2 s are 60 frames.
            self.assertGreaterEqual(during.get_value("frames") - before.get_value("frames"), 45)
            # Bounded: 32 handed over and 10 queued at most, the rest dropped and counted.
            self.assertLessEqual(during.get_value("in-flight"), 32)
            self.assertLessEqual(during.get_value("queued"), 10)
            self.assertGreater(during.get_value("dropped"), 0)
            self.assertEqual(
                sum(during.get_value(k) for k in ("sent", "dropped", "queued", "in-flight")),
                during.get_value("frames"))
            final = self.assert_final_stats(run, frames)
            self.assertLess(run.seconds, 5 + 4 + 5)
            # The connection held (no reconnection), and the broker took the rest once thawed.
            self.assertEqual(final["reconnects"], 0, final)
            self.assertGreater(final["sent"], during.get_value("sent") + 10, final)
            self.assertEqual(run.warnings, [])
            messages = subscriber.wait_for(final["sent"], timeout=10)
            subscriber.close()
            seqs = [r["seq"] for r in self.assert_valid_messages(messages, stream)]
            self.assertGreater(max(seqs), 120)

    def test_a_broker_frozen_at_eos_costs_at_most_flush_timeout(self):
        with support.Broker() as broker:
            frames = 60  # 2 s live
            run = Run(sink_pipeline(broker.port, frames, live=True,
                                    extra="stream-id=frozen qos=1 flush-timeout=1000"),
                      timeout=30)
            sink = run.pipeline.get_by_name("sink")
            run.start()
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and run.end is None:
                if sink.get_property("stats").get_value("sent") >= 5:
                    break
                time.sleep(0.05)
            broker.freeze()
            try:
                run.thread.join(run.timeout + 30)
            finally:
                broker.thaw()
            run.join()
            final = self.assert_final_stats(run, frames)
            # 2 s of stream, 1 s of flush-timeout, and slack for a loaded machine.
            self.assertLess(run.seconds, 2 + 1 + 3)
            self.assertGreater(final["dropped"], 0, final)

    def test_broker_that_comes_up_after_the_pipeline(self):
        broker = support.Broker()
        try:
            run = Run(sink_pipeline(broker.port, 90, live=True,
                                    extra="stream-id=late flush-timeout=4000 queue-size=200"),
                      timeout=40)
            run.start()
            time.sleep(1.0)
            broker.start()
            run.join()
            final = self.assert_final_stats(run, 90)
            self.assertGreater(final["sent"], 0, final)
            self.assertTrue(any("Could not connect" in w for w in run.warnings), run.warnings)
        finally:
            broker.stop()

    def test_wrong_password_is_a_clear_error(self):
        with support.Broker(users={"camera": "right"}) as broker:
            pipeline = sink_pipeline(broker.port, 5,
                                     extra="username=camera password=wrong stream-id=locked")
            self.assertEqual(pipeline.set_state(Gst.State.PLAYING), Gst.StateChangeReturn.FAILURE)
            message = pipeline.get_bus().timed_pop_filtered(10 * Gst.SECOND,
                                                            Gst.MessageType.ERROR)
            pipeline.set_state(Gst.State.NULL)
            self.assertIsNotNone(message)
            error, debug = message.parse_error()
            self.assertEqual(error.domain, "gst-resource-error-quark")
            self.assertEqual(error.code, int(Gst.ResourceError.NOT_AUTHORIZED))
            self.assertIn(f"127.0.0.1:{broker.port} refused the connection", error.message)
            self.assertIn("check username and password", error.message)

            # No credentials at all: refused too (anonymous clients are not allowed).
            pipeline = sink_pipeline(broker.port, 5, extra="stream-id=locked")
            self.assertEqual(pipeline.set_state(Gst.State.PLAYING), Gst.StateChangeReturn.FAILURE)
            pipeline.set_state(Gst.State.NULL)

            # The right password: every frame is sent.
            run = Run(sink_pipeline(broker.port, 5, extra="username=camera password=right qos=1"))
            run.start().join()
            self.assertEqual(self.assert_final_stats(run, 5)["sent"], 5)

    def test_tls(self):
        # Not a skip: tools/scripts/setup.sh installs openssl, and CI must run this.
        self.assertIsNotNone(shutil.which("openssl"), "openssl is missing (Debian: openssl)")
        with support.Broker(tls=True) as broker:
            # The broker's CA: every frame sent, over TLS.
            subscriber_free = f"tls=true ca-file={broker.ca_file} qos=1 stream-id=tls"
            run = Run(sink_pipeline(broker.port, 5, extra=subscriber_free))
            run.start().join()
            self.assertEqual(self.assert_final_stats(run, 5)["sent"], 5)
            self.assertEqual(run.warnings, [])

            # Another CA: the handshake fails, an error at start, not a silent retry.
            pipeline = sink_pipeline(broker.port, 5,
                                     extra=f"tls=true ca-file={broker.other_ca_file}")
            self.assertEqual(pipeline.set_state(Gst.State.PLAYING), Gst.StateChangeReturn.FAILURE)
            message = pipeline.get_bus().timed_pop_filtered(10 * Gst.SECOND,
                                                            Gst.MessageType.ERROR)
            pipeline.set_state(Gst.State.NULL)
            self.assertIsNotNone(message)
            error, debug = message.parse_error()
            self.assertEqual(error.code, int(Gst.ResourceError.OPEN_WRITE))
            self.assertIn("TLS handshake", error.message)
            self.assertIn("certificate verify failed", debug)


class FleetExampleTest(unittest.TestCase):
    """pipelines/fleet.sh and fleet-subscriber.py as a user runs them, on this build."""

    def test_fleet_and_its_subscriber(self):
        source = os.environ["GPUSIFT_SOURCE_ROOT"]
        with support.Broker() as broker:
            # The subscriber first, so that it sees every camera from its first frame.
            subscriber = subprocess.Popen(
                [sys.executable, os.path.join(source, "pipelines", "fleet-subscriber.py"),
                 "--port", str(broker.port), "--interval", "1"],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(1.0)
            fleet = subprocess.run(
                [os.path.join(source, "pipelines", "fleet.sh"), "-n", "2", "--port",
                 str(broker.port), "--seconds", "5", "--fps", "10", "--backend", "cpu"],
                capture_output=True, text=True, timeout=120)
            # One more table after the last frames, then Ctrl-C, as a user stops it.
            time.sleep(2.5)
            subscriber.send_signal(signal.SIGINT)
            out, err = subscriber.communicate(timeout=60)
        self.assertEqual(fleet.returncode, 0, fleet.stderr)
        self.assertIn("cam1: pid", fleet.stdout)
        self.assertEqual(subscriber.returncode, 0, err)
        # Rows of the tables: "cam0   fps frames missed kpts motion cumulative inliers tracks
        # objects"; cam1 films coffee.png and finds the cup in it.
        rows = [line.split() for line in out.splitlines() if re.match(r"cam\d+ ", line)]
        cameras = {row[0] for row in rows}
        self.assertEqual(cameras, {"cam0", "cam1"}, out)
        last = {row[0]: row for row in rows}
        for name, row in last.items():
            self.assertGreater(int(row[2]), 20, out)  # frames received of the 50 sent
            self.assertGreater(int(row[4]), 0, out)  # keypoints
        self.assertTrue(any(row[0] == "cam1" and "cup#" in " ".join(row) for row in rows), out)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]] + sys.argv[1:])
