# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python features reader (gpusift.features_file) under atheris: on any bytes it returns
frames or raises FeaturesFileError, its documented error for a file that is not a features file,
of another version, corrupt or truncated; anything else (MemoryError, struct, numpy, IndexError,
...) is a crash. What it returns must be consistent (a descriptor row per keypoint, of the
record's type and size).

Each input is read twice: as a seekable stream, whose size the reader checks a record's counts
against, and as a stream without a size that hands out at most 4 KiB a read, as a pipe does,
where the reader's buffer must grow with the bytes that come. Both must give the same frames.

Fuzzing (tools/scripts/ci/fuzz.sh installs atheris from PyPI into a venv):
    PYTHONPATH=tools/programs/python python tests/fuzz/features_file_atheris.py CORPUS [-flags]
Replaying files or folders without atheris (meson's fuzz-replay suite, Debian's python3):
    PYTHONPATH=tools/programs/python /usr/bin/python3 tests/fuzz/features_file_atheris.py \\
        --replay tests/fuzz/corpus/features_file
"""

import io
import os
import sys

REPLAY = len(sys.argv) > 1 and sys.argv[1] == "--replay"

try:
    import numpy as np
except ImportError:
    print("numpy is missing (Debian: python3-numpy); skipped", file=sys.stderr)
    sys.exit(77)

if REPLAY:
    from gpusift import features_file as gf
else:
    import atheris

    with atheris.instrument_imports():
        from gpusift import features_file as gf


class _PipeLike(io.RawIOBase):
    """The bytes as a pipe gives them: no size (not seekable, no file descriptor) and short
    reads."""

    def __init__(self, data):
        super().__init__()
        self._data = memoryview(data)
        self._at = 0

    def readable(self):
        return True

    def readinto(self, buffer):
        n = min(len(buffer), len(self._data) - self._at, 4096)
        buffer[:n] = self._data[self._at : self._at + n]
        self._at += n
        return n


def _read(stream):
    """The frames before the first error, each reduced to comparable values and checked."""
    frames = []
    try:
        for frame in gf.iter_frames(stream):
            n = len(frame.keypoints)
            if frame.keypoints.dtype != gf.KEYPOINT_DTYPE or frame.descriptors.shape[0] != n:
                raise AssertionError(f"{n} keypoints, descriptors {frame.descriptors.shape}")
            if frame.descriptor_type == "none":
                if frame.descriptors.shape[1] != 0:
                    raise AssertionError(f"no descriptors but {frame.descriptors.shape}")
            elif frame.descriptors.dtype != (np.uint8 if frame.descriptor_type == "uint8"
                                             else np.float32):
                raise AssertionError(f"{frame.descriptor_type} as {frame.descriptors.dtype}")
            if not frame.has_features and n:
                raise AssertionError(f'"no features" with {n} keypoints')
            frames.append((frame.index, frame.pts, frame.width, frame.height, frame.method,
                           frame.descriptor_type, frame.flags, frame.descriptors.shape,
                           frame.keypoints.tobytes(), frame.descriptors.tobytes()))
    except gf.FeaturesFileError:
        pass
    return frames


def test_one_input(data):
    sized = _read(io.BytesIO(data))
    unsized = _read(_PipeLike(data))
    if sized != unsized:
        raise AssertionError(f"{len(sized)} frames from a sized stream, {len(unsized)} from a "
                             "pipe, or different ones")


def replay(paths):
    count = 0
    for path in paths:
        names = sorted(os.path.join(path, n) for n in os.listdir(path)) \
            if os.path.isdir(path) else [path]
        for name in names:
            if os.path.isfile(name):
                with open(name, "rb") as f:
                    test_one_input(f.read())
                count += 1
    print(f"replayed {count} inputs")
    return 0 if count else 1


if __name__ == "__main__":
    if REPLAY:
        sys.exit(replay(sys.argv[2:]))
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
