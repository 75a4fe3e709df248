# SPDX-License-Identifier: LGPL-2.1-or-later
"""Reads gpusift features files (.gpsf, written by keypointfilesink and gpusift-extract) into
numpy arrays. Pure Python and numpy.

The layout is specified in common/include/gpusift/features_file.h: a 16-byte file header (magic
"GPSF\\r\\n\\x1a\\n", version 1), then one record per frame: a 40-byte header (tag "KPTS",
flags, pts, width, height, method, descriptor type and size, n_keypoints), n_keypoints 28-byte
keypoints and n_keypoints descriptor rows, all little-endian.

    from gpusift import features_file as gf
    for frame in gf.iter_frames("out.gpsf"):
        print(frame.pts, frame.keypoints["x"], frame.descriptors.shape)

As a program: print one line per frame, or convert to .npz:

    gpusift-features out.gpsf [--npz out.npz]          (installed)
    /usr/bin/python3 -m gpusift.features_file out.gpsf    (PYTHONPATH=tools/programs/python)
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from dataclasses import dataclass
from typing import BinaryIO, Iterator, List, Optional, Union

import numpy as np

MAGIC = b"GPSF\r\n\x1a\n"
VERSION = 1
RECORD_TAG = b"KPTS"
NO_PTS = 0xFFFFFFFFFFFFFFFF
FLAG_NO_FEATURES = 1

# GstKeypoint / gpusift::Keypoint, 28 bytes.
KEYPOINT_DTYPE = np.dtype(
    [
        ("x", "<f4"),
        ("y", "<f4"),
        ("size", "<f4"),
        ("angle", "<f4"),
        ("response", "<f4"),
        ("octave", "<i4"),
        ("class_id", "<i4"),
    ]
)
FILE_HEADER_DTYPE = np.dtype([("magic", "S8"), ("version", "<u4"), ("flags", "<u4")])
RECORD_HEADER_DTYPE = np.dtype(
    [
        ("tag", "S4"),
        ("flags", "<u4"),
        ("pts", "<u8"),
        ("width", "<u4"),
        ("height", "<u4"),
        ("method", "<u4"),
        ("descriptor_type", "<u4"),
        ("descriptor_size", "<u4"),
        ("n_keypoints", "<u4"),
    ]
)
assert KEYPOINT_DTYPE.itemsize == 28
assert FILE_HEADER_DTYPE.itemsize == 16
assert RECORD_HEADER_DTYPE.itemsize == 40

METHODS = ("sift", "surf")
DESCRIPTOR_TYPE_NAMES = ("none", "float32", "uint8")
_DESCRIPTOR_DTYPES = (np.dtype("<f4"), np.dtype("<f4"), np.dtype("u1"))
# As the C++ reader: a larger descriptor size marks a corrupt record.
MAX_DESCRIPTOR_SIZE = 1 << 16
# As the C++ reader: a width or height past this marks a corrupt record.
MAX_FRAME_SIDE = (1 << 31) - 1
# As the C++ reader: without a file size to check against (a pipe), a record whose arrays would
# take more bytes than this is taken for corruption rather than read.
MAX_UNCHECKED_RECORD_BYTES = 1 << 31
# Reads grow their buffer by at most this much at a time, so memory follows the bytes there are.
_READ_CHUNK = 1 << 20

Source = Union[str, "os.PathLike[str]", BinaryIO]


class FeaturesFileError(ValueError):
    """A file that is not a features file, of another version, corrupt or truncated."""


@dataclass(frozen=True)
class Frame:
    index: int  # the record's position in the file, from 0
    pts: Optional[int]  # nanoseconds; None when the frame had none
    width: int  # the keypoints' coordinate space
    height: int
    method: str  # "sift" or "surf"
    descriptor_type: str  # "none", "float32" or "uint8"
    has_features: bool  # False: the frame carried no features (a buffer without the meta)
    flags: int
    keypoints: np.ndarray  # shape (n,), KEYPOINT_DTYPE
    descriptors: np.ndarray  # shape (n, size), float32 or uint8; (n, 0) float32 without


def _read_exact(stream: BinaryIO, size: int) -> bytearray:
    """Up to `size` bytes, fewer at the end of the stream. The buffer grows with what is read, so
    a size that the stream cannot back costs no more memory than the bytes it has."""
    buffer = bytearray()
    while len(buffer) < size:
        chunk = min(size - len(buffer), _READ_CHUNK)
        filled = len(buffer)
        buffer.extend(bytes(chunk))
        view = memoryview(buffer)
        got = stream.readinto(view[filled:])
        view.release()
        if not got:
            del buffer[filled:]
            break
        if got < chunk:
            del buffer[filled + got :]
    return buffer


def _stream_size(stream: BinaryIO) -> Optional[int]:
    """The size of a regular file (or a seekable in-memory stream), None for a pipe."""
    try:
        info = os.fstat(stream.fileno())
    except (AttributeError, OSError, ValueError):
        info = None
    if info is not None:
        return info.st_size if stat.S_ISREG(info.st_mode) else None
    try:
        if not stream.seekable():
            return None
        here = stream.tell()
        end = stream.seek(0, os.SEEK_END)
        stream.seek(here)
        return end
    except (AttributeError, OSError, ValueError):
        return None


def check_record_header(header: np.void) -> str:
    """Empty when a record header's fields are valid, else what is wrong: the checks of the C++
    reader's check_record_header() (common/src/features_file.cpp), in its order and words."""
    method = int(header["method"])
    dtype_code = int(header["descriptor_type"])
    size = int(header["descriptor_size"])
    if method >= len(METHODS):
        return f"method {method} is neither 0 (sift) nor 1 (surf)"
    if dtype_code >= len(DESCRIPTOR_TYPE_NAMES):
        return f"descriptor type {dtype_code} is not 0 (none), 1 (float32), 2 (uint8)"
    if (dtype_code == 0) != (size == 0):
        return f"descriptor size {size} with descriptor type {dtype_code}"
    if size > MAX_DESCRIPTOR_SIZE:
        return f"descriptor size {size} is past {MAX_DESCRIPTOR_SIZE}"
    width, height = int(header["width"]), int(header["height"])
    if (width == 0 or height == 0) and not int(header["flags"]) & FLAG_NO_FEATURES:
        return f"frame size {width}x{height} is empty"
    if width > MAX_FRAME_SIDE or height > MAX_FRAME_SIDE:
        return f"frame size {width}x{height} is past {MAX_FRAME_SIDE} a side"
    n = int(header["n_keypoints"])
    if int(header["flags"]) & FLAG_NO_FEATURES and n > 0:
        return f'flagged "no features" but holds {n} keypoints'
    return ""


class _Reader:
    def __init__(self, stream: BinaryIO, name: str):
        self.stream = stream
        self.name = name
        self.offset = 0
        self.size = _stream_size(stream)
        self._read_file_header()

    def _fail(self, problem: str) -> None:
        raise FeaturesFileError(f"{self.name}: {problem}")

    def _read(self, size: int) -> bytearray:
        data = _read_exact(self.stream, size)
        self.offset += len(data)
        return data

    def _check_remaining(self, size: int, where: str) -> None:
        """Fails before reading (and allocating) `size` bytes of a record's arrays that the file
        cannot hold, as the C++ reader's check_remaining()."""
        if self.size is None:
            if size > MAX_UNCHECKED_RECORD_BYTES:
                self._fail(
                    f"{where}: {size} bytes of keypoints and descriptors are more than a "
                    "record of a file of unknown size may hold"
                )
            return
        if size > self.size - self.offset:
            # A file still being written has grown since it was opened.
            try:
                self.size = max(self.size, os.fstat(self.stream.fileno()).st_size)
            except (AttributeError, OSError, ValueError):
                pass
        left = max(self.size - self.offset, 0)
        if size > left:
            self._fail(
                f"truncated in {where}: its keypoints and descriptors need {size} bytes, "
                f"the file has {left} left"
            )

    def _read_file_header(self) -> None:
        data = self._read(FILE_HEADER_DTYPE.itemsize)
        if bytes(data[: len(MAGIC)]) != MAGIC:
            self._fail("not a gpusift features file (no GPSF magic at its start)")
        if len(data) < FILE_HEADER_DTYPE.itemsize:
            self._fail(f"truncated in the file header ({len(data)} of 16 bytes)")
        version = int(np.frombuffer(data, FILE_HEADER_DTYPE)[0]["version"])
        if version != VERSION:
            self._fail(f"version {version} is not supported (this reader reads {VERSION})")

    def frames(self) -> Iterator[Frame]:
        index = 0
        while True:
            record_offset = self.offset
            where = f"frame {index} (record at byte {record_offset})"
            data = self._read(RECORD_HEADER_DTYPE.itemsize)
            if not data:
                return
            if len(data) < RECORD_HEADER_DTYPE.itemsize:
                self._fail(
                    f"truncated in {where}: its record header needs 40 bytes, "
                    f"the file has {len(data)} left"
                )
            header = np.frombuffer(data, RECORD_HEADER_DTYPE)[0]
            if bytes(header["tag"]) != RECORD_TAG:
                self._fail(f"{where} has no KPTS tag")
            problem = check_record_header(header)
            if problem:
                self._fail(f"{where}: {problem}")
            method = int(header["method"])
            dtype_code = int(header["descriptor_type"])
            size = int(header["descriptor_size"])
            n = int(header["n_keypoints"])
            descriptor_dtype = _DESCRIPTOR_DTYPES[dtype_code]
            sizes = (n * KEYPOINT_DTYPE.itemsize, n * size * descriptor_dtype.itemsize)
            self._check_remaining(sizes[0] + sizes[1], where)
            arrays = []
            for part, part_bytes in zip(("keypoints", "descriptors"), sizes):
                payload = self._read(part_bytes)
                if len(payload) < part_bytes:
                    self._fail(
                        f"truncated in {where}: its {part} need {part_bytes} bytes, "
                        f"the file has {len(payload)} left"
                    )
                arrays.append(payload)
            keypoints = np.frombuffer(arrays[0], KEYPOINT_DTYPE)
            descriptors = np.frombuffer(arrays[1], descriptor_dtype).reshape(n, size)
            pts = int(header["pts"])
            flags = int(header["flags"])
            yield Frame(
                index=index,
                pts=None if pts == NO_PTS else pts,
                width=int(header["width"]),
                height=int(header["height"]),
                method=METHODS[method],
                descriptor_type=DESCRIPTOR_TYPE_NAMES[dtype_code],
                has_features=not flags & FLAG_NO_FEATURES,
                flags=flags,
                keypoints=keypoints,
                descriptors=descriptors,
            )
            index += 1


def iter_frames(source: Source) -> Iterator[Frame]:
    """Yields the frames of a features file (a path, or a binary stream such as stdin's) one at
    a time. Raises FeaturesFileError at the first bad or truncated record, after yielding the
    frames before it; OSError when the file cannot be read."""
    if hasattr(source, "readinto"):
        yield from _Reader(source, getattr(source, "name", "<stream>")).frames()
        return
    with open(source, "rb") as stream:
        yield from _Reader(stream, os.fspath(source)).frames()


def read_frames(source: Source) -> List[Frame]:
    """Every frame of a features file; raises as iter_frames does."""
    return list(iter_frames(source))


def npz_output_path(npz_path: Union[str, "os.PathLike[str]"]) -> str:
    """The file that to_npz(source, npz_path) writes: numpy's savez adds ".npz" to a name that
    lacks it."""
    path = os.fspath(npz_path)
    return path if path.endswith(".npz") else path + ".npz"


def to_npz(source: Source, npz_path: str) -> int:
    """Converts a features file into one .npz of concatenated arrays and returns the frame count:
    per frame pts (uint64, NO_PTS for none), width, height, method (0 sift, 1 surf), flags
    (uint32); keypoint_offsets (int64, frames + 1): frame i owns rows
    keypoint_offsets[i]:keypoint_offsets[i + 1] of keypoints (KEYPOINT_DTYPE) and descriptors
    (2-D); descriptor_type ("none", "float32", "uint8"). Frames with keypoints must share one
    descriptor type and size, else FeaturesFileError. The file written is
    npz_output_path(npz_path): ".npz" is added to a name without it."""
    frames = read_frames(source)
    kinds = {(f.descriptor_type, f.descriptors.shape[1]) for f in frames if len(f.keypoints)}
    if len(kinds) > 1:
        raise FeaturesFileError(
            f"{source}: frames differ in descriptor type or size {sorted(kinds)}; "
            "a .npz holds one"
        )
    descriptor_type, size = kinds.pop() if kinds else ("none", 0)
    dtype = _DESCRIPTOR_DTYPES[DESCRIPTOR_TYPE_NAMES.index(descriptor_type)]
    counts = np.array([len(f.keypoints) for f in frames], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    rows = [f.descriptors for f in frames if len(f.keypoints)]
    np.savez(
        npz_output_path(npz_path),
        pts=np.array([NO_PTS if f.pts is None else f.pts for f in frames], dtype=np.uint64),
        width=np.array([f.width for f in frames], dtype=np.uint32),
        height=np.array([f.height for f in frames], dtype=np.uint32),
        method=np.array([METHODS.index(f.method) for f in frames], dtype=np.uint32),
        flags=np.array([f.flags for f in frames], dtype=np.uint32),
        keypoint_offsets=offsets,
        keypoints=np.concatenate([f.keypoints for f in frames] or [np.empty(0, KEYPOINT_DTYPE)]),
        descriptors=np.concatenate(rows) if rows else np.empty((0, size), dtype),
        descriptor_type=np.array(descriptor_type),
    )
    return len(frames)


def _format_pts(pts: Optional[int]) -> str:
    return "none" if pts is None else f"{pts / 1e9:.6f}s"


def _summary() -> str:
    """The module docstring's first paragraph, whole, for --help."""
    return " ".join(__doc__.split("\n\n")[0].split())


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="gpusift-features",
        description=_summary() + " Prints one line per frame, or writes the frames into a .npz.",
    )
    parser.add_argument("file", help="features file (.gpsf)")
    parser.add_argument("--npz", metavar="OUT.npz", help="write the frames into a .npz instead")
    args = parser.parse_args(argv)
    try:
        if args.npz:
            count = to_npz(args.file, args.npz)
            print(f"{args.file}: {count} frames -> {npz_output_path(args.npz)}")
            return 0
        for frame in iter_frames(args.file):
            descriptors = (
                f"{frame.descriptor_type}x{frame.descriptors.shape[1]}"
                if frame.descriptor_type != "none"
                else "no descriptors"
            )
            features = "" if frame.has_features else " (no features)"
            print(
                f"frame {frame.index}: pts {_format_pts(frame.pts)} {frame.width}x{frame.height} "
                f"{frame.method} {len(frame.keypoints)} keypoints, {descriptors}{features}"
            )
    except BrokenPipeError:
        # Whoever read the output (head) has gone: not an error, and nothing more to flush.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (FeaturesFileError, OSError) as error:
        print(f"gpusift-features: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
