# SPDX-License-Identifier: LGPL-2.1-or-later
"""Shared by the results suites: the JSON Schema validator, test scenes made from the test images,
pipelines run to their end, and a mosquitto broker of the test's own on a free loopback port."""

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
gi.require_version("GstVideo", "1.0")
import jsonschema  # noqa: E402
import numpy as np  # noqa: E402
from gi.repository import Gst, GstApp, GstVideo  # noqa: E402,F401

SKIPPED = 77
TIMEOUT = 60 * Gst.SECOND

if not Gst.is_initialized():
    Gst.init(None)


def schema_validator():
    """A Draft 2020-12 validator of docs/schema/gpusift-results-v1.schema.json."""
    with open(os.environ["GPUSIFT_RESULTS_SCHEMA"], encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def data_path(name):
    return os.path.join(os.environ["GPUSIFT_TEST_DATA_DIR"], name)


def workdir():
    base = os.environ.get("GPUSIFT_TEST_WORKDIR") or tempfile.gettempdir()
    return tempfile.mkdtemp(prefix="results-", dir=base)


def load_gray(path):
    """An image file as a 2-D uint8 array, decoded by GStreamer."""
    pipeline = Gst.parse_launch(
        f'filesrc location="{path}" ! decodebin ! videoconvert ! video/x-raw,format=GRAY8 ! '
        "appsink name=sink sync=false"
    )
    pipeline.set_state(Gst.State.PLAYING)
    sample = pipeline.get_by_name("sink").try_pull_sample(TIMEOUT)
    pipeline.set_state(Gst.State.NULL)
    assert sample is not None, f"could not decode {path}"
    info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
    ok, mapped = sample.get_buffer().map(Gst.MapFlags.READ)
    assert ok
    try:
        stride = info.stride[0]
        rows = np.frombuffer(mapped.data, np.uint8)[: stride * info.height]
        return rows.reshape(info.height, stride)[:, : info.width].copy()
    finally:
        sample.get_buffer().unmap(mapped)


def write_png(image, path):
    """Writes a 2-D uint8 array as a PNG through GStreamer."""
    height, width = image.shape
    pipeline = Gst.parse_launch(
        "appsrc name=src format=time caps=video/x-raw,format=GRAY8,width=%d,height=%d,"
        'framerate=1/1 ! videoconvert ! pngenc ! filesink location="%s"' % (width, height, path)
    )
    src = pipeline.get_by_name("src")
    pipeline.set_state(Gst.State.PLAYING)
    src.emit("push-buffer", gray_buffer(image, 0))
    src.emit("end-of-stream")
    message = pipeline.get_bus().timed_pop_filtered(
        TIMEOUT, Gst.MessageType.EOS | Gst.MessageType.ERROR
    )
    pipeline.set_state(Gst.State.NULL)
    assert message is not None and message.type == Gst.MessageType.EOS, f"could not write {path}"


def gray_buffer(image, pts, duration=Gst.SECOND // 30):
    """A GRAY8 frame of rows padded to 4 bytes (GStreamer's default stride)."""
    height, width = image.shape
    stride = (width + 3) // 4 * 4
    padded = np.zeros((height, stride), np.uint8)
    padded[:, :width] = image
    buffer = Gst.Buffer.new_wrapped(padded.tobytes())
    if pts is not None:
        buffer.pts = pts
        buffer.duration = duration
    return buffer


def free_port():
    """A loopback TCP port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def mosquitto_binary():
    for candidate in ("/usr/sbin/mosquitto", shutil.which("mosquitto")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


class Broker:
    """A mosquitto of the test's own on 127.0.0.1:port, from a generated configuration; with
    users (name: password), anonymous clients are refused; with tls, it speaks TLS only, with a
    certificate for 127.0.0.1 signed by a CA of its own (ca_file; other_ca_file signs nothing)."""

    def __init__(self, users=None, tls=False):
        self.binary = mosquitto_binary()
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="broker-", dir=os.environ.get("GPUSIFT_TEST_WORKDIR"))
        self.config = os.path.join(self.dir, "mosquitto.conf")
        self.log = os.path.join(self.dir, "mosquitto.log")
        lines = [f"listener {self.port} 127.0.0.1", "persistence false", "log_dest stderr"]
        if os.geteuid() == 0:
            # Started as root, mosquitto becomes the user "mosquitto", who cannot read this folder.
            lines.append("user root")
        if users:
            passwords = os.path.join(self.dir, "passwords")
            for i, (name, password) in enumerate(users.items()):
                create = ["-c"] if i == 0 else []
                subprocess.run(
                    ["mosquitto_passwd", *create, "-b", passwords, name, password],
                    check=True,
                    capture_output=True,
                )
            lines += ["allow_anonymous false", f"password_file {passwords}"]
        else:
            lines += ["allow_anonymous true"]
        if tls:
            self.ca_file, self.other_ca_file = self._make_certificates()
            lines += [
                f"cafile {self.ca_file}",
                f"certfile {os.path.join(self.dir, 'server.pem')}",
                f"keyfile {os.path.join(self.dir, 'server.key')}",
            ]
        with open(self.config, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        self.process = None

    def _make_certificates(self):
        def openssl(*args):
            subprocess.run(["openssl", *args], cwd=self.dir, check=True, capture_output=True)

        for name in ("ca", "other-ca"):
            openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                    f"/CN=gpusift test {name}", "-keyout", f"{name}.key", "-out", f"{name}.pem")
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
                "-keyout", "server.key", "-out", "server.csr")
        with open(os.path.join(self.dir, "san.cnf"), "w", encoding="utf-8") as f:
            f.write("subjectAltName=IP:127.0.0.1\n")
        openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-days", "2", "-extfile", "san.cnf", "-out", "server.pem")
        return os.path.join(self.dir, "ca.pem"), os.path.join(self.dir, "other-ca.pem")

    def start(self):
        log = open(self.log, "a", encoding="utf-8")  # noqa: SIM115 (the broker writes to it)
        self.process = subprocess.Popen(
            [self.binary, "-c", self.config], stdout=log, stderr=subprocess.STDOUT
        )
        log.close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                with open(self.log, encoding="utf-8") as log:
                    raise RuntimeError(f"mosquitto exited: {log.read()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"mosquitto did not listen on {self.port}")

    def freeze(self):
        """Stops the broker's process without closing anything (SIGSTOP): a broker too slow to
        read or answer, whose connections stay open."""
        self.process.send_signal(signal.SIGSTOP)

    def thaw(self):
        self.process.send_signal(signal.SIGCONT)

    def stop(self):
        if self.process is not None:
            self.thaw()  # a frozen process would not see SIGTERM
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def run_to_end(pipeline, timeout=TIMEOUT, on_element=None):
    """Plays until EOS or ERROR; returns that message. Element messages go to on_element."""
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    kinds = Gst.MessageType.EOS | Gst.MessageType.ERROR | Gst.MessageType.ELEMENT
    while True:
        message = bus.timed_pop_filtered(timeout, kinds)
        if message is None or message.type != Gst.MessageType.ELEMENT:
            return message
        if on_element is not None:
            on_element(message)
