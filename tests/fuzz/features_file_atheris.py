# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python features reader (gpusift.features_file) under atheris: on any bytes it returns
frames or raises FeaturesFileError, nothing else (no MemoryError, no struct or numpy error),
and what it returns is consistent.

    PYTHONPATH=tools/programs/python python fuzz/features_file_atheris.py CORPUS [libFuzzer args]
"""

import io
import sys

import atheris

with atheris.instrument_imports():
    from gpusift import features_file as gf


def test_one_input(data):
    try:
        for frame in gf.iter_frames(io.BytesIO(data)):
            n = len(frame.keypoints)
            if frame.descriptors.shape[0] != n:
                raise AssertionError(f"{n} keypoints, descriptors {frame.descriptors.shape}")
    except gf.FeaturesFileError:
        pass


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
