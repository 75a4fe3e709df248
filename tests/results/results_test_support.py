# SPDX-License-Identifier: LGPL-2.1-or-later
"""Shared by the results suites: the JSON Schema validator, test scenes made from the test images,
pipelines run to their end."""

import json
import os
import tempfile

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
gi.require_version("GstVideo", "1.0")
import jsonschema  # noqa: E402
import numpy as np  # noqa: E402
from gi.repository import Gst, GstApp, GstVideo  # noqa: E402,F401

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
