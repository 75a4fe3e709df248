# SPDX-License-Identifier: LGPL-2.1-or-later
"""The package gpusift from the source tree: gpusift.metas reads tracks, motion and every found
object with their exact values, a buffer without them is told apart, and the old module names
(gst_keypoints, gpusift_features) are the package's modules themselves."""

import unittest

import pygobject_or_skip  # noqa: F401  (exits 77 without PyGObject or numpy)

import numpy as np
from gi.repository import GLib, Gst

from gpusift import features_file, metas
from gi.repository import GstKeypoints


class PackageTest(unittest.TestCase):
    def test_tracks_and_motion_come_back_exactly(self):
        tracks = np.array([(1, -1, 0), (1 << 40, 7, 12), (42, 0, 3)], metas.TRACK_DTYPE)
        motion = GstKeypoints.KeypointMotion.init()
        motion.model = GstKeypoints.KeypointMotionModel.AFFINE
        motion.frame_number = 9
        motion.valid = True
        motion.cumulative_valid = True
        motion.matches, motion.inliers, motion.tracks_alive = 30, 28, 40
        buffer = Gst.Buffer.new()
        GstKeypoints.buffer_add_keypoints_tracks_meta_from_bytes(
            buffer, 640, 480, GLib.Bytes.new(tracks.tobytes()), motion
        )

        got = metas.tracks(buffer)

        self.assertEqual((got.width, got.height), (640, 480))
        self.assertEqual(got.tracks.dtype, metas.TRACK_DTYPE)
        self.assertEqual(got.tracks.tobytes(), tracks.tobytes())
        self.assertFalse(got.tracks.flags.writeable)
        m = got.motion
        self.assertEqual((m.model, m.frame_number, m.valid, m.cumulative_valid), ("affine", 9, True, True))
        self.assertEqual((m.matches, m.inliers, m.tracks_alive), (30, 28, 40))
        # PyGObject cannot write array fields; gst_keypoint_motion_init() left the identities.
        np.testing.assert_array_equal(m.matrix, np.eye(3))
        np.testing.assert_array_equal(m.cumulative, np.eye(3))

    def test_every_found_object_comes_back(self):
        buffer = Gst.Buffer.new()
        for label, dx in (("box", 10.0), ("cup", 300.0)):
            shift = [1.0, 0.0, dx, 0.0, 1.0, 20.0, 0.0, 0.0, 1.0]
            GstKeypoints.buffer_add_keypoints_object_meta(
                buffer, label, 640, 480, 100, 50, shift, 20, 15
            )

        found = metas.objects(buffer)

        self.assertEqual([o.label for o in found], ["box", "cup"])
        cup = found[1]
        self.assertEqual((cup.width, cup.height, cup.reference_width), (640, 480, 100))
        self.assertEqual((cup.matches, cup.inliers), (20, 15))
        np.testing.assert_array_equal(
            cup.corners, [[300, 20], [399, 20], [399, 69], [300, 69]]
        )
        self.assertEqual(cup.homography[0, 2], 300.0)
        self.assertEqual(metas.objects(Gst.Buffer.new()), [])

    def test_a_buffer_without_tracks_raises_a_clear_error(self):
        with self.assertRaisesRegex(metas.MissingMetaError, "no GstKeypointsTracksMeta"):
            metas.tracks(Gst.Buffer.new())

    def test_the_old_names_are_the_package_modules(self):
        import gpusift_features
        import gst_keypoints

        self.assertIs(gst_keypoints, metas)
        self.assertIs(gpusift_features, features_file)


if __name__ == "__main__":
    unittest.main()
