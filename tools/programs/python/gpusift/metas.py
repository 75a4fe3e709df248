# SPDX-License-Identifier: LGPL-2.1-or-later
"""numpy views of the metas that gpusift's elements attach to buffers: keypoints and descriptors
(gpusiftfilter), tracks and camera motion (keypointtracker), found objects (keypointmatcher).

    from gpusift import metas
    features = metas.features(buffer)             # buffer: a Gst.Buffer, e.g. from appsink
    features.keypoints['response']                # structured array of KEYPOINT_DTYPE
    features.descriptors                          # n_keypoints x descriptor_size, or None
    tracks = metas.tracks(buffer)                 # tracks.tracks['track_id'], tracks.motion.matrix
    for found in metas.objects(buffer):           # every GstKeypointsObjectMeta
        print(found.label, found.corners)         # corners: 4 x 2 array

The keypoint, descriptor and track arrays are read-only views of the meta's own storage, not
copies. Each view keeps that storage alive, so it stays valid after the buffer that carried the
meta is gone. Motion matrices, corners and homographies are small numpy copies.

A buffer without the meta asked for raises MissingMetaError; get_meta() returns None instead. A
meta whose fields disagree with its arrays (changed by C code after it was added; bindings cannot
write them) raises InconsistentMetaError before anything is read.

Needs PyGObject with GStreamer's Python overrides (Debian: python3-gi, python3-gst-1.0), numpy,
and the typelib GstKeypoints-1.0 of the meta library. Installed, both are found; in a build tree
pipelines/env.sh sets GI_TYPELIB_PATH (BUILD/gst/keypoints/introspection), LD_LIBRARY_PATH
(BUILD/gst/keypoints) and PYTHONPATH (tools/programs/python).
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
    "TRACK_DTYPE",
    "Features",
    "Tracks",
    "Motion",
    "FoundObject",
    "MissingMetaError",
    "InconsistentMetaError",
    "get_meta",
    "features",
    "keypoints",
    "descriptors",
    "tracks",
    "objects",
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

# GstKeypointTrack: the track's id, the keypoint's index in the previous frame (-1: new), its age.
TRACK_DTYPE = np.dtype([("track_id", np.uint64), ("previous_index", np.int32), ("age", np.uint32)])
assert TRACK_DTYPE.itemsize == 16

_DESCRIPTOR_DTYPES = {
    GstKeypoints.KeypointsDescriptorType.FLOAT32: np.dtype(np.float32),
    GstKeypoints.KeypointsDescriptorType.UINT8: np.dtype(np.uint8),
}

Features = collections.namedtuple("Features", "method width height keypoints descriptors")
Features.__doc__ = """Features of one frame.

method: "sift" or "surf"; width, height: the keypoints' coordinate space; keypoints: array of
KEYPOINT_DTYPE; descriptors: 2-D float32 or uint8 array, one row per keypoint, or None when the
meta has no descriptors."""

Tracks = collections.namedtuple("Tracks", "width height tracks motion")
Tracks.__doc__ = """Tracks and camera motion of one frame (GstKeypointsTracksMeta).

tracks: array of TRACK_DTYPE, one per keypoint of the frame's features; motion: Motion."""

Motion = collections.namedtuple(
    "Motion",
    "model frame_number valid matrix cumulative_valid cumulative matches inliers tracks_alive",
)
Motion.__doc__ = """The camera motion: model ("none", "translation", "similarity", "affine",
"homography"); matrix and cumulative: 3x3 float64 arrays mapping the previous (first) frame's
points onto this one's; valid and cumulative_valid say whether they hold."""

FoundObject = collections.namedtuple(
    "FoundObject",
    "label width height reference_width reference_height corners homography matches inliers",
)
FoundObject.__doc__ = """An object keypointmatcher found (GstKeypointsObjectMeta): corners is a
4x2 array (top-left, top-right, bottom-right, bottom-left of the reference, in the frame's
width x height space), homography a 3x3 array mapping reference pixels onto the frame."""

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


def tracks(buffer):
    """The tracks and motion of the buffer's GstKeypointsTracksMeta; raises MissingMetaError when
    it has none."""
    meta = GstKeypoints.buffer_get_keypoints_tracks_meta(buffer)
    if meta is None:
        raise MissingMetaError(
            "the buffer has no GstKeypointsTracksMeta (is keypointtracker upstream of this point?)"
        )
    try:
        meta.validate()
    except GLib.Error as error:
        raise InconsistentMetaError(error.message) from None
    m = meta.motion
    motion = Motion(
        model=GstKeypoints.keypoint_motion_model_to_string(m.model),
        frame_number=m.frame_number,
        valid=bool(m.valid),
        matrix=np.array(m.matrix, np.float64).reshape(3, 3),
        cumulative_valid=bool(m.cumulative_valid),
        cumulative=np.array(m.cumulative, np.float64).reshape(3, 3),
        matches=m.matches,
        inliers=m.inliers,
        tracks_alive=m.tracks_alive,
    )
    array = _view(meta.get_tracks_buffer(), TRACK_DTYPE, (meta.n_tracks,))
    return Tracks(width=meta.width, height=meta.height, tracks=array, motion=motion)


def objects(buffer):
    """Every object found on the buffer (its GstKeypointsObjectMetas), a list of FoundObject;
    empty when there is none."""
    found = []
    for index in range(GstKeypoints.buffer_get_n_keypoints_object_metas(buffer)):
        meta = GstKeypoints.buffer_get_keypoints_object_meta_nth(buffer, index)
        found.append(
            FoundObject(
                label=meta.get_label(),
                width=meta.width,
                height=meta.height,
                reference_width=meta.reference_width,
                reference_height=meta.reference_height,
                corners=np.array(meta.corners, np.float64).reshape(4, 2),
                homography=np.array(meta.homography, np.float64).reshape(3, 3),
                matches=meta.matches,
                inliers=meta.inliers,
            )
        )
    return found


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
