# SPDX-License-Identifier: LGPL-2.1-or-later
"""The installed Python package against the installed plugin: gpusift.metas reads the features,
tracks and found object of a real picture, gpusift.features_file reads a features file, and both
come from the installed tree, not the sources.

    installed_package_check.py PACKAGE_ROOT IMAGE FEATURES_FILE
"""

import os
import sys

package_root, image, features_file = sys.argv[1:4]

import gi  # noqa: E402

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
from gi.repository import Gst, GstApp  # noqa: E402,F401 (GstApp: appsink)

from gpusift import features_file as gf  # noqa: E402
from gpusift import metas  # noqa: E402

for module in (gf, metas):
    if not os.path.realpath(module.__file__).startswith(os.path.realpath(package_root)):
        sys.exit(f"{module.__name__} imported from {module.__file__}, not {package_root}")

Gst.init(None)
pipeline = Gst.parse_launch(
    f'filesrc location="{image}" ! decodebin ! videoconvert ! imagefreeze num-buffers=2 ! '
    "gpusiftfilter backend=cpu ! keypointtracker backend=cpu ! "
    f'keypointmatcher backend=cpu label=picture reference="{image}" ! '
    "appsink name=sink sync=false"
)
pipeline.set_state(Gst.State.PLAYING)
sink = pipeline.get_by_name("sink")
samples = [sink.emit("try-pull-sample", 60 * Gst.SECOND) for _ in range(2)]
pipeline.set_state(Gst.State.NULL)
if None in samples:
    sys.exit("the pipeline gave fewer than 2 frames")
buffer = samples[1].get_buffer()
features = metas.features(buffer)
tracks = metas.tracks(buffer)
found = metas.objects(buffer)
n = len(features.keypoints)
if n < 100 or features.descriptors.shape != (n, 128):
    sys.exit(f"{n} keypoints, descriptors {features.descriptors.shape}")
if tracks.tracks.shape != (n,) or tracks.motion.matrix.shape != (3, 3):
    sys.exit(f"tracks {tracks.tracks.shape}, motion {tracks.motion.matrix.shape}")
if not tracks.motion.valid or (tracks.tracks["previous_index"] >= 0).sum() < n // 2:
    sys.exit("the same picture twice: most keypoints should continue a track")
if [o.label for o in found] != ["picture"] or found[0].corners.shape != (4, 2):
    sys.exit(f"objects {found}")
frames = list(gf.iter_frames(features_file))
if len(frames) != 1 or len(frames[0].keypoints) < 100:
    sys.exit(f"{features_file}: {len(frames)} frames")
print(
    f"installed package: {n} keypoints, {int((tracks.tracks['previous_index'] >= 0).sum())} "
    f"continued tracks, object {found[0].label} with {found[0].inliers} inliers; "
    f"{len(frames[0].keypoints)} keypoints in the features file"
)
