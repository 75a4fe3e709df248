# SPDX-License-Identifier: LGPL-2.1-or-later
"""tools/programs/python/gst_keypoints.py on metas made through the typelib: exact values, shapes and
dtypes, the missing meta, and arrays that are views of the meta's storage rather than copies."""

import ctypes
import gc
import subprocess
import sys
import textwrap
import unittest

import pygobject_or_skip  # noqa: F401  (exits 77 without PyGObject or numpy)

import numpy as np
from gi.repository import GLib, Gst

import gst_keypoints
from gst_keypoints import KEYPOINT_DTYPE
from gi.repository import GstKeypoints

Method = GstKeypoints.KeypointsMethod
DescriptorType = GstKeypoints.KeypointsDescriptorType


def sample_keypoints(n):
    keypoints = np.zeros(n, KEYPOINT_DTYPE)
    keypoints["x"] = np.arange(n) * 1.5 + 0.25
    keypoints["y"] = np.arange(n) * -2.0 + 479.0
    keypoints["size"] = 3.0 + np.arange(n, dtype=np.float32) / 7
    keypoints["angle"] = [-1.0 if i % 3 == 0 else 359.75 for i in range(n)]
    keypoints["response"] = np.linspace(0.01, 0.09, n, dtype=np.float32)
    keypoints["octave"] = [(i << 16) | 0xFF if i % 2 else -(i + 1) for i in range(n)]
    keypoints["class_id"] = [1 if i % 2 else -1 for i in range(n)]
    return keypoints


def buffer_with_meta(method, keypoints, descriptor_type, descriptors):
    """A buffer whose meta shares GBytes made from the given arrays."""
    buffer = Gst.Buffer.new()
    size = 0 if descriptors is None else descriptors.shape[1]
    meta = GstKeypoints.buffer_add_keypoints_meta_from_bytes(
        buffer,
        method,
        640,
        480,
        GLib.Bytes.new(keypoints.tobytes()),
        descriptor_type,
        size,
        None if descriptors is None else GLib.Bytes.new(descriptors.tobytes()),
    )
    assert meta is not None
    return buffer


def address(array):
    return array.__array_interface__["data"][0]


def overwrite_field(meta, name, value):
    """Writes a guint field of the meta's C struct, as C code in a probe could; bindings cannot
    (the typelib marks the fields read-only). PyGObject hashes a struct by its address."""
    (field,) = [f for f in meta.__info__.get_fields() if f.get_name() == name]
    ctypes.c_uint.from_address(hash(meta) + field.get_offset()).value = value


class HelperTest(unittest.TestCase):
    def assert_bit_equal(self, actual, expected):
        self.assertEqual(actual.dtype, expected.dtype)
        self.assertEqual(actual.shape, expected.shape)
        self.assertEqual(actual.tobytes(), expected.tobytes())

    def test_sift_float_descriptors_come_back_bit_for_bit(self):
        keypoints = sample_keypoints(5)
        descriptors = np.random.default_rng(1).random((5, 128), dtype=np.float32)
        buffer = buffer_with_meta(Method.SIFT, keypoints, DescriptorType.FLOAT32, descriptors)

        features = gst_keypoints.features(buffer)

        self.assertEqual((features.method, features.width, features.height), ("sift", 640, 480))
        self.assert_bit_equal(features.keypoints, keypoints)
        self.assert_bit_equal(features.descriptors, descriptors)
        self.assert_bit_equal(gst_keypoints.keypoints(buffer), keypoints)
        self.assert_bit_equal(gst_keypoints.descriptors(buffer), descriptors)

    def test_surf_uint8_descriptors_come_back_bit_for_bit(self):
        keypoints = sample_keypoints(3)
        descriptors = np.arange(3 * 64, dtype=np.uint8).reshape(3, 64)
        buffer = buffer_with_meta(Method.SURF, keypoints, DescriptorType.UINT8, descriptors)

        features = gst_keypoints.features(buffer)

        self.assertEqual(features.method, "surf")
        self.assert_bit_equal(features.keypoints, keypoints)
        self.assert_bit_equal(features.descriptors, descriptors)

    def test_arrays_are_read_only_views_of_the_meta_storage(self):
        keypoints = sample_keypoints(4)
        descriptors = np.ones((4, 128), np.float32)
        buffer = buffer_with_meta(Method.SIFT, keypoints, DescriptorType.FLOAT32, descriptors)
        meta = gst_keypoints.get_meta(buffer)

        features = gst_keypoints.features(buffer)

        # The meta's raw pointers, as the typelib exposes them: the arrays start right there.
        self.assertEqual(address(features.keypoints), meta.keypoints)
        self.assertEqual(address(features.descriptors), meta.descriptors)
        for array in (features.keypoints, features.descriptors):
            self.assertFalse(array.flags.owndata)
            self.assertFalse(array.flags.writeable)
            with self.assertRaises(ValueError):
                array[0] = array[1]

    def test_arrays_outlive_the_buffer(self):
        keypoints = sample_keypoints(6)
        descriptors = np.full((6, 128), 7, np.uint8)
        buffer = buffer_with_meta(Method.SIFT, keypoints, DescriptorType.UINT8, descriptors)
        features = gst_keypoints.features(buffer)
        field = features.keypoints["response"]

        del buffer
        gc.collect()

        self.assert_bit_equal(features.keypoints, keypoints)
        self.assert_bit_equal(features.descriptors, descriptors)
        self.assert_bit_equal(field, keypoints["response"])

    def test_arrays_still_alive_at_exit_let_the_interpreter_end_cleanly(self):
        # A view in a reference cycle is collected while the interpreter shuts down, when
        # PyGObject can no longer unmap (it crashed the process before the helper knew that).
        script = textwrap.dedent("""
            import gst_keypoints
            from gi.repository import GLib, Gst, GstKeypoints
            buffer = Gst.Buffer.new()
            GstKeypoints.buffer_add_keypoints_meta_from_bytes(
                buffer, GstKeypoints.KeypointsMethod.SIFT, 64, 48, GLib.Bytes.new(bytes(56)),
                GstKeypoints.KeypointsDescriptorType.NONE, 0, None)
            cycle = []
            cycle.append(cycle)
            cycle.append(gst_keypoints.keypoints(buffer))
            kept = gst_keypoints.keypoints(buffer)
        """)

        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                                timeout=60)

        self.assertEqual((result.returncode, result.stderr), (0, ""))

    def test_no_keypoints_gives_empty_arrays_of_the_right_shape(self):
        buffer = buffer_with_meta(
            Method.SIFT, sample_keypoints(0), DescriptorType.FLOAT32, np.zeros((0, 128), np.float32)
        )

        features = gst_keypoints.features(buffer)

        self.assertEqual(features.keypoints.shape, (0,))
        self.assertEqual(features.keypoints.dtype, KEYPOINT_DTYPE)
        self.assertEqual(features.descriptors.shape, (0, 128))
        self.assertEqual(features.descriptors.dtype, np.float32)

    def test_meta_without_descriptors_gives_none(self):
        keypoints = sample_keypoints(2)
        buffer = buffer_with_meta(Method.SIFT, keypoints, DescriptorType.NONE, None)

        features = gst_keypoints.features(buffer)

        self.assert_bit_equal(features.keypoints, keypoints)
        self.assertIsNone(features.descriptors)
        self.assertIsNone(gst_keypoints.descriptors(buffer))

    def test_buffer_without_meta_raises_a_clear_error(self):
        buffer = Gst.Buffer.new()

        self.assertIsNone(gst_keypoints.get_meta(buffer))
        for read in (gst_keypoints.features, gst_keypoints.keypoints, gst_keypoints.descriptors):
            with self.assertRaisesRegex(gst_keypoints.MissingMetaError, "no GstKeypointsMeta"):
                read(buffer)
        self.assertTrue(issubclass(gst_keypoints.MissingMetaError, LookupError))

    def test_bindings_cannot_write_the_meta_fields(self):
        buffer = buffer_with_meta(Method.SIFT, sample_keypoints(3), DescriptorType.NONE, None)
        meta = gst_keypoints.get_meta(buffer)
        for name, value in (("n_keypoints", 3007), ("descriptor_size", 64), ("width", 1)):
            with self.assertRaises(RuntimeError, msg=name):
                setattr(meta, name, value)
        self.assertEqual((meta.n_keypoints, meta.descriptor_size, meta.width), (3, 0, 640))

    def test_a_meta_changed_from_c_raises_before_anything_is_read(self):
        descriptors = np.ones((4, 128), np.float32)
        for name, value, says in (
            ("n_keypoints", 4007, "n_keypoints is 4007 but the keypoint array holds 4"),
            ("n_keypoints", 5, "n_keypoints is 5 but the keypoint array holds 4"),
            ("n_keypoints", 3, "n_keypoints is 3 but the keypoint array holds 4"),
            ("descriptor_size", 129, "4 rows of 129 float32 values do not fit"),
            ("descriptor_type", int(DescriptorType.UINT8), "4 rows of 128 uint8 values"),
        ):
            with self.subTest(field=name, value=value):
                buffer = buffer_with_meta(
                    Method.SIFT, sample_keypoints(4), DescriptorType.FLOAT32, descriptors
                )
                overwrite_field(gst_keypoints.get_meta(buffer), name, value)
                for read in (
                    gst_keypoints.features,
                    gst_keypoints.keypoints,
                    gst_keypoints.descriptors,
                ):
                    with self.assertRaisesRegex(gst_keypoints.InconsistentMetaError, says):
                        read(buffer)


if __name__ == "__main__":
    unittest.main()
