# SPDX-License-Identifier: LGPL-2.1-or-later
"""Real images through filesrc ! decodebin ! videoconvert ! gpusiftfilter backend=cpu ! appsink,
read in Python through the GstKeypoints typelib and numpy, must equal bit for bit what
gpusift-extract writes for the same image and parameters; and the arrays must be views of the
meta's own storage.

    keypoints_vs_cli_test.py --extract BUILD/tools/programs/gpusift-extract --data tests/data --workdir DIR
"""

import argparse
import os
import subprocess
import sys
import unittest

import pygobject_or_skip  # noqa: F401  (exits 77 without PyGObject or numpy)

import gi
import numpy as np

import gst_keypoints

gi.require_version("GstApp", "1.0")
from gi.repository import Gst, GstApp  # noqa: E402,F401 (GstApp: the appsink's methods)

FRAME_TIMEOUT = 60 * Gst.SECOND
KEYPOINT_FLOAT_FIELDS = ("x", "y", "size", "angle", "response")

# Gray images, so that the element and the CLI (which reads images as gray) see the same pixels.
# coins is 384x303: an odd height, upscaled, with byte descriptors.
CASES = [
    {"image": "camera.pnm", "upscale": False, "descriptor": "float"},
    {"image": "coins.pnm", "upscale": True, "descriptor": "uint8"},
]

options = None  # set from the command line


def image_path(name):
    path = os.path.join(options.data, name)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"test image {path} is missing: run tools/scripts/fetch-test-images.sh")
    return path


def element_sample(case):
    """The sample gpusiftfilter gives for the image, and its pipeline (still playing)."""
    description = (
        f"filesrc location={image_path(case['image'])} ! decodebin ! videoconvert ! "
        f"gpusiftfilter backend=cpu upscale={str(case['upscale']).lower()} "
        f"descriptor={case['descriptor']} ! appsink name=sink sync=false"
    )
    pipeline = Gst.parse_launch_full(description, None, Gst.ParseFlags.FATAL_ERRORS)
    if pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
        raise RuntimeError(f"cannot play {description}")
    sample = pipeline.get_by_name("sink").try_pull_sample(FRAME_TIMEOUT)
    if sample is None:
        error = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
        pipeline.set_state(Gst.State.NULL)
        raise RuntimeError(
            f"no frame from {description}: {error.parse_error()[0].message if error else 'stall'}"
        )
    return sample, pipeline


def cli_features(case):
    """(keypoint columns, descriptor columns) of gpusift-extract's CSV, as text."""
    csv_path = os.path.join(options.workdir, f"vs-cli-{case['image']}.csv")
    subprocess.run(
        [
            options.extract,
            "--backend",
            "cpu",
            "--upscale",
            "1" if case["upscale"] else "0",
            "--descriptor",
            case["descriptor"],
            image_path(case["image"]),
            "-o",
            csv_path,
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    with open(csv_path) as csv:
        header = csv.readline().strip().split(",")
        rows = [line.strip().split(",") for line in csv]
    assert header[:6] == ["x", "y", "size", "angle", "response", "octave"], header
    table = np.array(rows, dtype=str).reshape(len(rows), len(header))
    return table[:, :6], table[:, 6:]


class KeypointsVsCliTest(unittest.TestCase):
    def assert_bits_equal(self, actual, expected, what):
        self.assertEqual(actual.dtype, expected.dtype, what)
        self.assertEqual(actual.shape, expected.shape, what)
        self.assertTrue(
            np.array_equal(actual.view(np.uint8), expected.view(np.uint8)),
            f"{what}: {np.count_nonzero(actual != expected)} values differ",
        )

    def check_case(self, case):
        sample, pipeline = element_sample(case)
        try:
            buffer = sample.get_buffer()
            meta = gst_keypoints.get_meta(buffer)
            features = gst_keypoints.features(buffer)
        finally:
            pipeline.set_state(Gst.State.NULL)
        keypoint_text, descriptor_text = cli_features(case)

        keypoints = features.keypoints
        self.assertGreater(len(keypoints), 50)
        self.assertEqual(len(keypoints), len(keypoint_text))
        # %.9g in the CSV gives every float32 back exactly.
        for column, field in enumerate(KEYPOINT_FLOAT_FIELDS):
            expected = keypoint_text[:, column].astype(np.float64).astype(np.float32)
            self.assert_bits_equal(np.ascontiguousarray(keypoints[field]), expected, field)
        octaves = keypoint_text[:, 5].astype(np.int64).astype(np.int32)
        self.assert_bits_equal(np.ascontiguousarray(keypoints["octave"]), octaves, "octave")
        self.assertTrue(np.all(keypoints["class_id"] == -1))

        if case["descriptor"] == "uint8":
            expected = descriptor_text.astype(np.int64).astype(np.uint8)
        else:
            expected = descriptor_text.astype(np.float64).astype(np.float32)
        self.assertEqual(features.descriptors.shape, (len(keypoints), 128))
        self.assert_bits_equal(features.descriptors, expected, "descriptors")

        # Zero copy: the arrays start at the meta's own pointers and own nothing.
        self.assertEqual(keypoints.__array_interface__["data"][0], meta.keypoints)
        self.assertEqual(features.descriptors.__array_interface__["data"][0], meta.descriptors)
        self.assertFalse(keypoints.flags.owndata or features.descriptors.flags.owndata)
        self.assertFalse(keypoints.flags.writeable or features.descriptors.flags.writeable)

    def test_camera_upscale_off_float_descriptors(self):
        self.check_case(CASES[0])

    def test_coins_upscaled_uint8_descriptors(self):
        self.check_case(CASES[1])


def parse_options():
    parser = argparse.ArgumentParser()
    parser.add_argument("--extract", required=True, help="path of gpusift-extract")
    parser.add_argument("--data", required=True, help="folder of the test images")
    parser.add_argument("--workdir", required=True, help="folder for the CLI's CSV files")
    parsed, rest = parser.parse_known_args()
    return parsed, [sys.argv[0]] + rest


if __name__ == "__main__":
    options, unittest_argv = parse_options()
    unittest.main(argv=unittest_argv)
