# SPDX-License-Identifier: LGPL-2.1-or-later
"""keypointmatcher's detection read in Python through the GstKeypoints typelib: a crop of
coffee.png (cut and written by GStreamer) is found in the whole image, and the object meta gives
its label, corners, homography and counts.

    object_meta_python_test.py --data tests/data --workdir DIR
"""

import argparse
import os
import sys
import unittest

import pygobject_or_skip  # noqa: F401  (exits 77 without PyGObject or numpy)

import gi

gi.require_version("GstApp", "1.0")
from gi.repository import Gst, GstApp, GstKeypoints  # noqa: E402,F401 (GstApp: appsink)

FRAME_TIMEOUT = 60 * Gst.SECOND
CROP = {"left": 150, "top": 60, "right": 200, "bottom": 140}  # of 600x400: 250x200 at (150, 60)

options = None  # set from the command line


def run(description):
    pipeline = Gst.parse_launch(description)
    pipeline.set_state(Gst.State.PLAYING)
    message = pipeline.get_bus().timed_pop_filtered(
        FRAME_TIMEOUT, Gst.MessageType.EOS | Gst.MessageType.ERROR
    )
    return pipeline, message


class ObjectMetaTest(unittest.TestCase):
    def test_the_crop_is_found_where_it_was_cut(self):
        image = os.path.join(options.data, "coffee.png")
        reference = os.path.join(options.workdir, "coffee-crop.png")
        crop = " ".join(f"{side}={pixels}" for side, pixels in CROP.items())
        pipeline, message = run(
            f'filesrc location="{image}" ! decodebin ! videocrop {crop} ! videoconvert ! '
            f'pngenc ! filesink location="{reference}"'
        )
        pipeline.set_state(Gst.State.NULL)
        self.assertEqual(message.type, Gst.MessageType.EOS)

        pipeline = Gst.parse_launch(
            f'filesrc location="{image}" ! decodebin ! videoconvert ! gpusiftfilter backend=cpu ! '
            f'keypointmatcher backend=cpu label=cup reference="{reference}" ! '
            "appsink name=sink sync=false"
        )
        pipeline.set_state(Gst.State.PLAYING)
        sample = pipeline.get_by_name("sink").try_pull_sample(FRAME_TIMEOUT)
        self.assertIsNotNone(sample, "no frame came out")
        buffer = sample.get_buffer()

        meta = GstKeypoints.buffer_get_keypoints_object_meta(buffer)
        self.assertIsNotNone(meta)
        self.assertEqual(meta.get_label(), "cup")
        self.assertEqual((meta.width, meta.height), (600, 400))
        self.assertEqual((meta.reference_width, meta.reference_height), (250, 200))
        self.assertGreaterEqual(meta.inliers, 12)
        self.assertLessEqual(meta.inliers, meta.matches)
        expected = [150, 60, 399, 60, 399, 259, 150, 259]
        for got, want in zip(meta.corners, expected):
            self.assertAlmostEqual(got, want, delta=2.0)
        self.assertEqual(len(meta.homography), 9)
        self.assertAlmostEqual(meta.homography[2], 150, delta=2.0)
        self.assertEqual(
            GstKeypoints.buffer_get_keypoints_object_meta_by_label(buffer, "cup").label, meta.label
        )

        pipeline.set_state(Gst.State.NULL)


def parse_options():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True, help="folder of the test images")
    parser.add_argument("--workdir", required=True, help="folder for the reference image")
    parsed, rest = parser.parse_known_args()
    return parsed, [sys.argv[0]] + rest


if __name__ == "__main__":
    Gst.init(None)
    options, unittest_argv = parse_options()
    unittest.main(argv=unittest_argv)
