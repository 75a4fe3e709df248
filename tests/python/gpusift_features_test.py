#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tools/programs/python/gpusift_features.py against the C++ side, bit for bit: files written by
gpusift-extract (compared with its CSV of the same image) and by keypointfilesink (compared with
the C++ reader's dump, features-dump), the .npz converter, and the reader's errors.

Run by meson (tests/python/meson.build) under /usr/bin/python3 with the paths in the
environment: GPUSIFT_EXTRACT, FEATURES_DUMP, GST_LAUNCH (may be empty), GPUSIFT_TEST_DATA_DIR,
GST_PLUGIN_PATH."""

import os
import struct
import subprocess
import sys
import tempfile
import threading
import tracemalloc
import unittest

try:
    import numpy as np
except ImportError:
    print("numpy is missing (Debian: python3-numpy); skipped", file=sys.stderr)
    sys.exit(77)

import gpusift_features as gf

EXTRACT = os.environ["GPUSIFT_EXTRACT"]
DUMP = os.environ["FEATURES_DUMP"]
GST_LAUNCH = os.environ.get("GST_LAUNCH", "")
DATA_DIR = os.environ["GPUSIFT_TEST_DATA_DIR"]
KEYPOINT_FIELDS = ("x", "y", "size", "angle", "response", "octave", "class_id")


def run(args):
    result = subprocess.run(args, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise AssertionError(f"{args} exited {result.returncode}: {result.stderr}")
    return result.stdout


def bits(array):
    """The bytes of an array, so that equality is bit equality (NaN payloads and -0 included)."""
    return np.ascontiguousarray(array).tobytes()


def read_csv(path):
    with open(path, encoding="ascii") as f:
        header = f.readline().strip().split(",")
        rows = [line.strip().split(",") for line in f if line.strip()]
    return header, rows


def dump_frames(path):
    """The C++ reader's view of a file: one dict per frame."""
    frames = []
    for line in run([DUMP, path]).splitlines():
        fields = line.split(" ")
        numbers = [int(v) for v in fields[:8]]
        names = ("flags", "pts", "width", "height", "method", "descriptor_type",
                 "descriptor_size", "n_keypoints")
        frame = dict(zip(names, numbers))
        frame["keypoints"] = b"" if fields[8] == "-" else bytes.fromhex(fields[8])
        frame["descriptors"] = b"" if fields[9] == "-" else bytes.fromhex(fields[9])
        frames.append(frame)
    return frames


class ReaderAgainstCsv(unittest.TestCase):
    """One image through gpusift-extract into both formats: the .gpsf read in Python equals the
    CSV value for value (%.9g gives back the same float32)."""

    def check(self, extra_args, with_class_id):
        with tempfile.TemporaryDirectory() as tmp:
            image = os.path.join(DATA_DIR, "camera.png")
            args = [EXTRACT, "--backend", "cpu", *extra_args, image, "-o"]
            run(args + [os.path.join(tmp, "f.gpsf")])
            run(args + [os.path.join(tmp, "f.csv")])
            frames = gf.read_frames(os.path.join(tmp, "f.gpsf"))
            header, rows = read_csv(os.path.join(tmp, "f.csv"))

        self.assertEqual(len(frames), 1)
        frame = frames[0]
        self.assertGreater(len(frame.keypoints), 100)
        self.assertEqual(len(frame.keypoints), len(rows))
        self.assertEqual((frame.width, frame.height), (512, 512))
        self.assertIsNone(frame.pts)
        self.assertTrue(frame.has_features)
        self.assertEqual(frame.keypoints.dtype, gf.KEYPOINT_DTYPE)

        columns = {name: i for i, name in enumerate(header)}
        for name in ("x", "y", "size", "angle", "response"):
            expected = np.array([row[columns[name]] for row in rows], dtype=np.float32)
            self.assertEqual(bits(frame.keypoints[name]), bits(expected), name)
        octave = np.array([int(row[columns["octave"]]) for row in rows], dtype=np.int32)
        self.assertEqual(bits(frame.keypoints["octave"]), bits(octave))
        if with_class_id:
            class_id = np.array([int(row[columns["class_id"]]) for row in rows], dtype=np.int32)
            self.assertEqual(bits(frame.keypoints["class_id"]), bits(class_id))
        else:
            self.assertTrue(np.all(frame.keypoints["class_id"] == -1))

        first_d = columns.get("d0")
        if first_d is None:
            self.assertEqual(frame.descriptor_type, "none")
            self.assertEqual(frame.descriptors.shape, (len(rows), 0))
            return
        values = [row[first_d:] for row in rows]
        if frame.descriptor_type == "uint8":
            expected = np.array([[int(v) for v in row] for row in values], dtype=np.uint8)
        else:
            expected = np.array([[float(v) for v in row] for row in values]).astype(np.float32)
        self.assertEqual(frame.descriptors.dtype, expected.dtype)
        self.assertEqual(frame.descriptors.shape, expected.shape)
        self.assertEqual(bits(frame.descriptors), bits(expected))

    def test_sift_float(self):
        self.check([], with_class_id=False)

    def test_sift_uint8(self):
        self.check(["--descriptor", "uint8"], with_class_id=False)

    def test_sift_without_descriptors(self):
        self.check(["--descriptor", "none"], with_class_id=False)

    def test_surf_extended(self):
        self.check(["--method", "surf", "--extended", "1"], with_class_id=True)


@unittest.skipUnless(GST_LAUNCH, "gst-launch-1.0 not found")
class ReaderAgainstCppReader(unittest.TestCase):
    """Files of several frames from keypointfilesink: the Python frames equal the C++ reader's
    dump byte for byte."""

    def launch(self, pipeline, path):
        run([GST_LAUNCH, "-q", *pipeline.split(), f"location={path}"])

    def compare(self, path):
        frames = gf.read_frames(path)
        expected = dump_frames(path)
        self.assertEqual(len(frames), len(expected))
        for frame, want in zip(frames, expected):
            with self.subTest(frame=frame.index):
                pts = gf.NO_PTS if frame.pts is None else frame.pts
                self.assertEqual(pts, want["pts"])
                self.assertEqual(frame.flags, want["flags"])
                self.assertEqual((frame.width, frame.height), (want["width"], want["height"]))
                self.assertEqual(frame.method, gf.METHODS[want["method"]])
                self.assertEqual(frame.descriptor_type,
                                 gf.DESCRIPTOR_TYPE_NAMES[want["descriptor_type"]])
                self.assertEqual(len(frame.keypoints), want["n_keypoints"])
                self.assertEqual(frame.descriptors.shape,
                                 (want["n_keypoints"], want["descriptor_size"]))
                self.assertEqual(bits(frame.keypoints), want["keypoints"])
                self.assertEqual(bits(frame.descriptors), want["descriptors"])
        return frames

    def test_sift_frames_with_timestamps(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "ball.gpsf")
            self.launch("videotestsrc num-buffers=5 pattern=ball ! "
                        "video/x-raw,format=I420,width=192,height=144,framerate=25/1 ! "
                        "gpusiftfilter backend=cpu ! keypointfilesink", path)
            frames = self.compare(path)
        self.assertEqual(len(frames), 5)
        self.assertEqual([f.pts for f in frames], [i * 40_000_000 for i in range(5)])
        self.assertTrue(all(len(f.keypoints) > 0 for f in frames))
        self.assertTrue(all(f.descriptors.dtype == np.float32 for f in frames))

    def test_surf_and_uint8(self):
        for properties, dtype in (("method=surf", np.float32), ("descriptor=uint8", np.uint8)):
            with self.subTest(properties=properties), tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "f.gpsf")
                self.launch("videotestsrc num-buffers=3 pattern=snow ! "
                            "video/x-raw,format=GRAY8,width=128,height=96 ! "
                            f"gpusiftfilter backend=cpu {properties} ! keypointfilesink", path)
                frames = self.compare(path)
                self.assertEqual(len(frames), 3)
                self.assertGreater(sum(len(f.keypoints) for f in frames), 0)
                self.assertTrue(all(f.descriptors.dtype == dtype for f in frames))

    def test_frames_without_meta(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "plain.gpsf")
            self.launch("videotestsrc num-buffers=2 ! video/x-raw,width=64,height=48 ! "
                        "keypointfilesink", path)
            frames = self.compare(path)
        self.assertEqual(len(frames), 2)
        for frame in frames:
            self.assertFalse(frame.has_features)
            self.assertEqual((frame.width, frame.height), (64, 48))
            self.assertEqual(frame.keypoints.shape, (0,))


class ReaderErrorsAndNpz(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.image_file = os.path.join(self.tmp.name, "coins.gpsf")
        run([EXTRACT, "--backend", "cpu", "--upscale", "0", os.path.join(DATA_DIR, "coins.png"),
             "-o", self.image_file])
        with open(self.image_file, "rb") as f:
            self.data = f.read()

    def write(self, name, data):
        path = os.path.join(self.tmp.name, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_truncated_file_yields_whole_frames_then_a_clear_error(self):
        path = self.write("two.gpsf", self.data + self.data[16:] + self.data[16:-5])
        frames = []
        with self.assertRaisesRegex(gf.FeaturesFileError,
                                    r"truncated in frame 2 \(record at byte \d+\)"):
            for frame in gf.iter_frames(path):
                frames.append(frame)
        self.assertEqual(len(frames), 2)
        self.assertEqual(bits(frames[0].keypoints), bits(frames[1].keypoints))
        self.assertGreater(len(frames[0].keypoints), 50)
        with self.assertRaisesRegex(gf.FeaturesFileError, "record header needs 40 bytes"):
            gf.read_frames(self.write("header.gpsf", self.data + b"KPTS\0\0"))

    def test_bad_magic_version_and_tag(self):
        with self.assertRaisesRegex(gf.FeaturesFileError, "not a gpusift features file"):
            gf.read_frames(self.write("csv.gpsf", b"x,y,size\n1,2,3\n"))
        with self.assertRaisesRegex(gf.FeaturesFileError, "not a gpusift features file"):
            gf.read_frames(self.write("empty.gpsf", b""))
        with self.assertRaisesRegex(gf.FeaturesFileError, "version 2 is not supported"):
            gf.read_frames(self.write("v2.gpsf", self.data[:8] + b"\2\0\0\0" + self.data[12:]))
        with self.assertRaisesRegex(gf.FeaturesFileError, "no KPTS tag"):
            gf.read_frames(self.write("tag.gpsf", self.data[:16] + b"XXXX" + self.data[20:]))
        with self.assertRaisesRegex(gf.FeaturesFileError, "method 7"):
            gf.read_frames(self.write("m.gpsf", self.data[:40] + b"\7\0\0\0" + self.data[44:]))
        with self.assertRaises(OSError):
            gf.read_frames(os.path.join(self.tmp.name, "missing.gpsf"))

    def test_program_exits_with_2_and_one_line_on_a_bad_file(self):
        bad = self.write("bad.gpsf", b"nope")
        result = subprocess.run([sys.executable, gf.__file__, bad], capture_output=True,
                                text=True, check=False)
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stderr.count("\n"), 1, result.stderr)
        self.assertIn("not a gpusift features file", result.stderr)

    def test_npz_holds_the_frames(self):
        path = self.write("three.gpsf", self.data + self.data[16:] + self.data[16:])
        npz = os.path.join(self.tmp.name, "three.npz")
        frames = gf.read_frames(path)
        self.assertEqual(gf.to_npz(path, npz), 3)
        with np.load(npz) as saved:
            offsets = saved["keypoint_offsets"]
            self.assertEqual(len(offsets), 4)
            self.assertEqual(str(saved["descriptor_type"]), "float32")
            self.assertTrue(np.all(saved["pts"] == gf.NO_PTS))
            for i, frame in enumerate(frames):
                rows = slice(offsets[i], offsets[i + 1])
                self.assertGreater(len(frame.keypoints), 0)
                self.assertEqual(bits(saved["keypoints"][rows]), bits(frame.keypoints))
                self.assertEqual(bits(saved["descriptors"][rows]), bits(frame.descriptors))
                self.assertEqual(saved["width"][i], frame.width)

    def test_npz_reports_the_path_it_writes(self):
        # numpy's savez adds ".npz" to a name without it; the program must name that file.
        os.mkdir(os.path.join(self.tmp.name, "cliout"))
        result = subprocess.run([sys.executable, gf.__file__, self.image_file, "--npz",
                                 os.path.join("cliout", "foo")], capture_output=True, text=True,
                                check=False, cwd=self.tmp.name)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(os.path.isfile(os.path.join(self.tmp.name, "cliout", "foo.npz")))
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "cliout", "foo")))
        self.assertTrue(result.stdout.rstrip("\n").endswith(" frames -> cliout/foo.npz"),
                        result.stdout)
        self.assertEqual(gf.npz_output_path("a/b.npz"), "a/b.npz")
        self.assertEqual(gf.npz_output_path("a/b"), "a/b.npz")


def patched(data, offset, fmt, value):
    """`data` with the little-endian `fmt` field at `offset` (of the first record) set to value."""
    field = struct.pack(fmt, value)
    return data[:offset] + field + data[offset + len(field):]


# Offsets of the first record's header fields, which starts at byte 16.
FLAGS, WIDTH, HEIGHT, N_KEYPOINTS = 20, 32, 36, 52


class ReaderChecksBeforeAllocating(unittest.TestCase):
    """Every record's fields and sizes are checked, against the bytes left in the file, before
    anything is allocated for them; and the Python reader refuses what the C++ reader refuses,
    with the same message."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        path = os.path.join(self.tmp.name, "coins.gpsf")
        run([EXTRACT, "--backend", "cpu", "--upscale", "0", os.path.join(DATA_DIR, "coins.png"),
             "-o", path])
        with open(path, "rb") as f:
            self.data = f.read()

    def write(self, name, data):
        path = os.path.join(self.tmp.name, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def python_error(self, source):
        with self.assertRaises(gf.FeaturesFileError) as caught:
            gf.read_frames(source)
        return str(caught.exception)

    def cpp_error(self, path):
        result = subprocess.run([DUMP, path], capture_output=True, text=True, check=False)
        self.assertEqual(result.returncode, 1, result.stdout)
        return result.stdout.splitlines()[-1].removeprefix("error: ")

    def test_huge_keypoint_counts_fail_without_allocating(self):
        for n in (0xFFFFFFFF, 20_000_000):
            with self.subTest(n_keypoints=n):
                path = self.write(f"n{n}.gpsf", patched(self.data, N_KEYPOINTS, "<I", n))
                tracemalloc.start()
                try:
                    message = self.python_error(path)
                    _, peak = tracemalloc.get_traced_memory()
                finally:
                    tracemalloc.stop()
                self.assertLess(peak, 8 << 20, f"{peak} bytes allocated for a refused record")
                self.assertRegex(message, r"truncated in frame 0 \(record at byte 16\): its "
                                 r"keypoints and descriptors need \d+ bytes, the file has "
                                 rf"{len(self.data) - 56} left")
                self.assertEqual(message, self.cpp_error(path))

    def test_a_pipe_of_unknown_size_is_read_as_its_bytes_come(self):
        cases = ((0xFFFFFFFF, "more than a record of a file of unknown size may hold"),
                 (1_000_000, "its keypoints need 28000000 bytes"))
        for n, says in cases:
            with self.subTest(n_keypoints=n):
                read_end, write_end = os.pipe()
                data = patched(self.data, N_KEYPOINTS, "<I", n)

                def feed(fd=write_end, data=data):
                    with open(fd, "wb") as writer:
                        try:
                            writer.write(data)
                        except BrokenPipeError:
                            pass

                feeder = threading.Thread(target=feed)
                feeder.start()
                tracemalloc.start()
                try:
                    with open(read_end, "rb") as reader:
                        message = self.python_error(reader)
                    _, peak = tracemalloc.get_traced_memory()
                finally:
                    tracemalloc.stop()
                    feeder.join()
                self.assertIn(says, message)
                self.assertLess(peak, 8 << 20, f"{peak} bytes allocated for a refused record")

    def test_record_fields_are_checked_as_the_cpp_reader_does(self):
        self.assertGreater(struct.unpack_from("<I", self.data, N_KEYPOINTS)[0], 0)
        cases = (
            ("no-features.gpsf", FLAGS, gf.FLAG_NO_FEATURES, 'flagged "no features" but holds'),
            ("width0.gpsf", WIDTH, 0, "frame size 0x"),
            ("height0.gpsf", HEIGHT, 0, "frame size "),
            ("wide.gpsf", WIDTH, 0xFFFFFFFF, "frame size 4294967295x"),
        )
        for name, offset, value, says in cases:
            with self.subTest(name):
                path = self.write(name, patched(self.data, offset, "<I", value))
                message = self.python_error(path)
                self.assertIn(f"{path}: frame 0 (record at byte 16): {says}", message)
                self.assertEqual(message, self.cpp_error(path))
        # A record without features and without keypoints is a valid one.
        empty = self.data[:16] + patched(self.data[16:56], FLAGS - 16 + 0, "<I", 1)
        empty = patched(empty, N_KEYPOINTS, "<I", 0)
        frames = gf.read_frames(self.write("empty-record.gpsf", empty))
        self.assertEqual(len(frames), 1)
        self.assertFalse(frames[0].has_features)


if __name__ == "__main__":
    unittest.main(verbosity=2)
