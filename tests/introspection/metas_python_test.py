# SPDX-License-Identifier: LGPL-2.1-or-later
"""The tracks and object metas made and read through the GstKeypoints typelib by their names,
GstKeypoints.KeypointsTracksMeta and GstKeypoints.KeypointsObjectMeta; the names from before the
rename (GstKeypointTracksMeta, gst_buffer_get_keypoint_object_meta, ...) are C only."""

import unittest

import pygobject_or_skip  # noqa: F401  (exits 77 without PyGObject or numpy)

import numpy as np
from gi.repository import GLib, Gst

import gi

gi.require_version("GstKeypoints", "1.0")
from gi.repository import GstKeypoints  # noqa: E402

TRACK_DTYPE = np.dtype([("track_id", "<u8"), ("previous_index", "<i4"), ("age", "<u4")])


class TracksMetaTest(unittest.TestCase):
    def test_tracks_and_motion_come_back(self):
        tracks = np.array([(1, -1, 0), (1 << 32, 7, 12), (42, 0, 3)], TRACK_DTYPE)
        motion = GstKeypoints.KeypointMotion.init()
        motion.model = GstKeypoints.KeypointMotionModel.TRANSLATION
        motion.frame_number = 5
        motion.matches = 30
        motion.inliers = 28
        buffer = Gst.Buffer.new()

        added = GstKeypoints.buffer_add_keypoints_tracks_meta_from_bytes(
            buffer, 640, 480, GLib.Bytes.new(tracks.tobytes()), motion
        )
        self.assertIsInstance(added, GstKeypoints.KeypointsTracksMeta)

        meta = GstKeypoints.buffer_get_keypoints_tracks_meta(buffer)
        self.assertIsInstance(meta, GstKeypoints.KeypointsTracksMeta)
        self.assertEqual((meta.width, meta.height, meta.n_tracks), (640, 480, 3))
        self.assertEqual(meta.motion.model, GstKeypoints.KeypointMotionModel.TRANSLATION)
        self.assertEqual((meta.motion.frame_number, meta.motion.matches), (5, 30))
        self.assertEqual(meta.motion.inliers, 28)
        self.assertEqual(list(meta.motion.matrix), [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0])

        tracks_buffer = meta.get_tracks_buffer()
        ok, info = tracks_buffer.map(Gst.MapFlags.READ)
        self.assertTrue(ok)
        try:
            self.assertEqual(np.frombuffer(info.data, TRACK_DTYPE).tolist(), tracks.tolist())
        finally:
            tracks_buffer.unmap(info)

    def test_a_buffer_without_one_gives_none(self):
        self.assertIsNone(GstKeypoints.buffer_get_keypoints_tracks_meta(Gst.Buffer.new()))


class ObjectMetaTest(unittest.TestCase):
    def test_object_comes_back_by_label(self):
        buffer = Gst.Buffer.new()
        shift = [1.0, 0.0, 10.0, 0.0, 1.0, 20.0, 0.0, 0.0, 1.0]

        for label in ("box", "cup"):
            added = GstKeypoints.buffer_add_keypoints_object_meta(
                buffer, label, 640, 480, 100, 50, shift, 20, 15
            )
            self.assertIsInstance(added, GstKeypoints.KeypointsObjectMeta)

        first = GstKeypoints.buffer_get_keypoints_object_meta(buffer)
        self.assertEqual(first.get_label(), "box")
        cup = GstKeypoints.buffer_get_keypoints_object_meta_by_label(buffer, "cup")
        self.assertIsInstance(cup, GstKeypoints.KeypointsObjectMeta)
        self.assertEqual(cup.get_label(), "cup")
        self.assertEqual((cup.reference_width, cup.reference_height), (100, 50))
        self.assertEqual((cup.matches, cup.inliers), (20, 15))
        self.assertEqual(list(cup.corners), [10.0, 20.0, 109.0, 20.0, 109.0, 69.0, 10.0, 69.0])
        self.assertIsNone(GstKeypoints.buffer_get_keypoints_object_meta_by_label(buffer, "pen"))


class NamesTest(unittest.TestCase):
    def test_the_typelib_has_only_the_gstkeypoints_names(self):
        for name in (
            "KeypointTracksMeta",
            "KeypointObjectMeta",
            "buffer_get_keypoint_tracks_meta",
            "buffer_add_keypoint_tracks_meta_from_bytes",
            "buffer_get_keypoint_object_meta",
            "buffer_get_keypoint_object_meta_by_label",
            "buffer_add_keypoint_object_meta",
            "keypoint_tracks_meta_api_get_type",
            "keypoint_object_meta_api_get_type",
        ):
            self.assertFalse(hasattr(GstKeypoints, name), name)
        # The metas' API types keep their registered names (see the C sources).
        tracks_api = GstKeypoints.keypoints_tracks_meta_api_get_type()
        object_api = GstKeypoints.keypoints_object_meta_api_get_type()
        self.assertEqual(tracks_api.name, "GstKeypointTracksMetaAPI")
        self.assertEqual(object_api.name, "GstKeypointObjectMetaAPI")


if __name__ == "__main__":
    Gst.init(None)
    unittest.main()
