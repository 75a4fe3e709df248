# SPDX-License-Identifier: LGPL-2.1-or-later
"""numpy arrays of the keypoints and descriptors that gpusiftfilter attaches to buffers.

    import gst_keypoints
    features = gst_keypoints.features(buffer)      # buffer: a Gst.Buffer, e.g. from appsink
    features.keypoints['response']                 # structured array of KEYPOINT_DTYPE
    features.descriptors                           # n_keypoints x descriptor_size, or None

The arrays are read-only views of the meta's own storage, not copies. Each view keeps that
storage alive, so it stays valid after the buffer that carried the meta is gone.

A buffer without a GstKeypointsMeta raises MissingMetaError; get_meta() returns None instead.

Needs PyGObject with GStreamer's Python overrides (Debian: python3-gi, python3-gst-1.0), numpy,
and the typelib GstKeypoints-1.0 of the meta library, found through the environment:
GI_TYPELIB_PATH must name the folder of GstKeypoints-1.0.typelib and LD_LIBRARY_PATH the folder
of libgstkeypoints-1.0.so.0 unless both are installed (in a build tree, BUILD/gst/keypoints/
introspection and BUILD/gst/keypoints; pipelines/env.sh sets them for ./build).

A meta whose fields disagree with its arrays (changed by C code after it was added; bindings
cannot write them) raises InconsistentMetaError before anything is read.
"""

import collections
import sys

import gi
import numpy as np

gi.require_version("Gst", "1.0")
try:
    gi.require_version("GstKeypoints", "1.0")
except ValueError as error:
    raise ImportError(
        f"{error}: set GI_TYPELIB_PATH to the folder of GstKeypoints-1.0.typelib "
        "(BUILD/gst/keypoints/introspection, built when gobject-introspection is installed)"
    ) from error
from gi.repository import GLib, Gst, GstKeypoints  # noqa: E402

__all__ = [
    "KEYPOINT_DTYPE",
    "Features",
    "MissingMetaError",
    "InconsistentMetaError",
    "get_meta",
    "features",
    "keypoints",
    "descriptors",
]

# GstKeypoint as C lays it out: five floats, then two 32-bit integers.
KEYPOINT_DTYPE = np.dtype(
    [
        ("x", np.float32),
        ("y", np.float32),
        ("size", np.float32),
        ("angle", np.float32),
        ("response", np.float32),
        ("octave", np.int32),
        ("class_id", np.int32),
    ]
)
assert KEYPOINT_DTYPE.itemsize == 28

_DESCRIPTOR_DTYPES = {
    GstKeypoints.KeypointsDescriptorType.FLOAT32: np.dtype(np.float32),
    GstKeypoints.KeypointsDescriptorType.UINT8: np.dtype(np.uint8),
}

Features = collections.namedtuple("Features", "method width height keypoints descriptors")
Features.__doc__ = """Features of one frame.

method: "sift" or "surf"; width, height: the keypoints' coordinate space; keypoints: array of
KEYPOINT_DTYPE; descriptors: 2-D float32 or uint8 array, one row per keypoint, or None when the
meta has no descriptors."""

if not Gst.is_initialized():
    Gst.init(None)


class MissingMetaError(LookupError):
    """The buffer carries no GstKeypointsMeta."""


class InconsistentMetaError(ValueError):
    """The buffer's GstKeypointsMeta has fields that disagree with its arrays."""


def get_meta(buffer):
    """The buffer's GstKeypoints.KeypointsMeta, or None. It lives as long as the buffer."""
    return GstKeypoints.buffer_get_keypoints_meta(buffer)


def features(buffer):
    """Features of the buffer's meta; raises MissingMetaError when it has none."""
    meta = _require_meta(buffer)
    return Features(
        method=GstKeypoints.keypoints_method_to_string(meta.method),
        width=meta.width,
        height=meta.height,
        keypoints=_keypoints_of(meta),
        descriptors=_descriptors_of(meta),
    )


def keypoints(buffer):
    """The keypoints of the buffer's meta; raises MissingMetaError when it has none."""
    return _keypoints_of(_require_meta(buffer))


def descriptors(buffer):
    """The descriptors of the buffer's meta, None without descriptors; raises MissingMetaError
    when the buffer has no meta."""
    return _descriptors_of(_require_meta(buffer))


def _require_meta(buffer):
    meta = get_meta(buffer)
    if meta is None:
        raise MissingMetaError(
            "the buffer has no GstKeypointsMeta (is gpusiftfilter upstream of this point?)"
        )
    try:
        meta.validate()
    except GLib.Error as error:
        raise InconsistentMetaError(error.message) from None
    return meta


def _keypoints_of(meta):
    return _view(meta.get_keypoints_buffer(), KEYPOINT_DTYPE, (meta.n_keypoints,))


def _descriptors_of(meta):
    data = meta.get_descriptors_buffer()
    if data is None:
        return None
    dtype = _DESCRIPTOR_DTYPES[meta.descriptor_type]
    return _view(data, dtype, (meta.n_keypoints, meta.descriptor_size))


def _view(buffer, dtype, shape):
    """A read-only array of dtype and shape over the buffer's memory."""
    expected = int(np.prod(shape)) * dtype.itemsize
    if buffer.get_size() != expected:
        raise RuntimeError(
            f"meta array of {buffer.get_size()} bytes where {expected} were expected: "
            "the typelib does not match libgstkeypoints-1.0"
        )
    if expected == 0:
        empty = np.empty(shape, dtype)
        empty.flags.writeable = False
        return empty
    return np.asarray(_MappedBuffer(buffer)).view(dtype).reshape(shape)


class _MappedBuffer:
    """Maps a buffer for reading for as long as numpy arrays view it.

    Gst.Buffer.map() gives a memoryview of the memory, but the memoryview does not keep the
    buffer (and so the memory) alive. This object does, and numpy arrays made from its
    __array_interface__ hold it as their base, so the memory outlives every view of it.
    """

    def __init__(self, buffer):
        self._buffer = buffer
        self._map_info = None
        mapped, map_info = buffer.map(Gst.MapFlags.READ)
        if not mapped:
            raise RuntimeError("cannot map the meta's array for reading")
        self._map_info = map_info
        if not isinstance(map_info.data, memoryview):
            raise RuntimeError(
                "Gst.Buffer.map() gave no memoryview: GStreamer's Python overrides "
                "(Debian: python3-gst-1.0) are missing"
            )
        address = np.frombuffer(map_info.data, np.uint8).__array_interface__["data"][0]
        self.__array_interface__ = {
            "version": 3,
            "shape": (map_info.data.nbytes,),
            "typestr": "|u1",
            "data": (address, True),  # read-only
        }

    def __del__(self):
        # While the interpreter shuts down PyGObject can no longer call into GStreamer (it
        # crashes); the process is ending, so the mapping may just stay.
        if self._map_info is not None and not sys.is_finalizing():
            self._buffer.unmap(self._map_info)
